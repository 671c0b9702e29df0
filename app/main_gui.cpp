// archipelago: the GUI. Argument parsing only; the window lives in app/gui.
#include "window/application.h"

int main(int argc, char** argv)
{
    return archipelago::app::runApplication(argc, argv);
}
