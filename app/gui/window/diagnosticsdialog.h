// Lists the problems found in a scenario file: file, JSON pointer and message, one per row,
// so the user can find each one in the file.
#pragma once

#include "io/scenarioio.h"

#include <QDialog>

#include <vector>

namespace archipelago::app {

class DiagnosticsDialog : public QDialog
{
    Q_OBJECT

public:
    DiagnosticsDialog(const QString& path, const std::vector<core::Diagnostic>& diagnostics,
                      QWidget* parent = nullptr);
};

} // namespace archipelago::app
