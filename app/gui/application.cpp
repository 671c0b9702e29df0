#include "application.h"

#include <QApplication>

namespace archipelago::app {

int runApplication(int argc, char** argv)
{
    QApplication application(argc, argv);
    return 0;
}

} // namespace archipelago::app
