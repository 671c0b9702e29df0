// `archipelago --screenshot OUT.png`: render the main window, evaluated, to an image file.
#pragma once

#include <QSize>
#include <QString>

namespace archipelago::app {

class MainWindow;

struct ScreenshotOptions
{
    QString outputPath;
    QSize size{1600, 1000};
    int evaluationTimeoutMs = 10'000;
};

// Shows the window at the requested size, waits until the evaluation of the current scenario
// is published (or the timeout passes), grabs the window and writes the image. Returns the
// process exit code; problems are written to stderr.
int takeScreenshot(MainWindow& window, const ScreenshotOptions& options);

} // namespace archipelago::app
