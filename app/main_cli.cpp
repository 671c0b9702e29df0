// archipelago-cli: argument forwarding only; the commands live in app/cli.
#include "cli.h"

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    return archipelago::cli::run(args, std::cout, std::cerr);
}
