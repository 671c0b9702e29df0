#include "window/calibrationdialog.h"

#include "io/calibrationio.h"
#include "io/scenarioio.h"
#include "io/textfile.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QThread>
#include <QVBoxLayout>

#include <map>
#include <set>

namespace archipelago::app {

CalibrationDialog::CalibrationDialog(const std::string& accelerator, QString folder,
                                     QWidget* parent)
    : QDialog(parent)
    , m_preferredAccelerator(accelerator)
    , m_folder(std::move(folder))
{
    setWindowTitle(tr("Calibrate from Measured Runs"));
    m_runsLabel = new QLabel(this);
    m_runsLabel->setObjectName(QStringLiteral("calibrationRuns"));
    m_runsLabel->setWordWrap(true);
    auto* add = new QPushButton(tr("&Add Runs File…"), this);
    add->setToolTip(tr("A runs file in the format of the published runs (../shared/validation), "
                       "such as archipelago-cli measure writes from a training log"));
    m_accelerator = new QComboBox(this);
    m_accelerator->setObjectName(QStringLiteral("calibrationAccelerator"));

    auto* parameters = new QGroupBox(tr("Parameters to fit"), this);
    auto* grid = new QGridLayout(parameters);
    int i = 0;
    for (const core::CalibrationParameter& p : core::calibrationParameters()) {
        auto* box = new QCheckBox(QString::fromUtf8(p.name), parameters);
        box->setToolTip(
            tr("%1 (range %2 to %3)").arg(QString::fromUtf8(p.meaning)).arg(p.lo).arg(p.hi));
        box->setChecked(std::string(p.name) == "gemm_peak" ||
                        std::string(p.name) == "memory_bound");
        grid->addWidget(box, i / 3, i % 3);
        // Untouched, the boxes ask for the default set, which keeps what the runs identify.
        connect(box, &QCheckBox::clicked, this, [this] { m_defaultFit = false; });
        m_parameters.push_back(box);
        ++i;
    }
    m_fit = new QPushButton(tr("&Fit"), this);
    m_fit->setObjectName(QStringLiteral("calibrationFit"));
    m_fit->setToolTip(tr("Coordinate descent over each parameter's physical range, then each "
                         "run predicted by the same fit on the other runs (leave-one-out)"));
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    m_progress->hide(); // shown while a fit runs
    m_result = new QPlainTextEdit(this);
    m_result->setObjectName(QStringLiteral("calibrationResult"));
    m_result->setReadOnly(true);
    m_result->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_result->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_result->setPlaceholderText(
        tr("Add the runs you measured, choose the parameters and fit. Each run's iteration time "
           "is predicted with the catalog's parameters, with the fitted ones, and with a fit on "
           "the other runs (leave-one-out): the last is the error to expect on a design the "
           "fit has not seen."));

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_use = buttons->addButton(tr("&Save and Use…"), QDialogButtonBox::AcceptRole);
    m_use->setObjectName(QStringLiteral("calibrationUse"));
    m_use->setToolTip(tr("Write the calibration file and evaluate this design with it"));
    m_use->setEnabled(false);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_use, &QPushButton::clicked, this, &CalibrationDialog::saveInteractively);
    connect(m_fit, &QPushButton::clicked, this, &CalibrationDialog::fit);
    connect(add, &QPushButton::clicked, this, [this] {
        const QStringList paths = QFileDialog::getOpenFileNames(
            this, tr("Add Runs File"), m_folder, tr("Runs files (*.json);;All files (*)"));
        for (const QString& path : paths) {
            QString error;
            if (!addRunsFile(path, &error))
                QMessageBox::warning(this, tr("Add Runs File"), error);
        }
    });

    auto* top = new QHBoxLayout;
    top->addWidget(m_runsLabel, 1);
    top->addWidget(add);
    auto* choose = new QHBoxLayout;
    auto* label = new QLabel(tr("A&ccelerator:"), this);
    label->setBuddy(m_accelerator);
    choose->addWidget(label);
    choose->addWidget(m_accelerator, 1);
    choose->addWidget(m_fit);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addLayout(choose);
    layout->addWidget(parameters);
    layout->addWidget(m_progress);
    layout->addWidget(m_result, 1);
    layout->addWidget(buttons);
    resize(900, 600);
    refreshRuns();
}

CalibrationDialog::~CalibrationDialog()
{
    if (m_thread) {
        m_cancel->store(true);
        m_thread->wait();
        delete m_thread;
    }
}

bool CalibrationDialog::addRunsFile(const QString& path, QString* error)
{
    const core::PublishedRunsLoad load =
        core::loadPublishedRuns(QFile::encodeName(path).toStdString());
    if (!load.ok()) {
        if (error)
            *error = QString::fromStdString(load.errors.front().toString());
        return false;
    }
    std::set<std::string> ids;
    for (const core::PublishedRun& r : m_runs)
        ids.insert(r.id);
    for (const core::PublishedRun& r : load.runs)
        if (ids.count(r.id)) {
            if (error)
                *error = tr("%1: the run \"%2\" is already added from another file")
                             .arg(path, QString::fromStdString(r.id));
            return false;
        }
    m_runs.insert(m_runs.end(), load.runs.begin(), load.runs.end());
    m_files << QFileInfo(path).fileName();
    refreshRuns();
    return true;
}

void CalibrationDialog::setFitted(const QStringList& parameters)
{
    m_defaultFit = false;
    for (QCheckBox* box : m_parameters)
        box->setChecked(parameters.contains(box->text()));
}

void CalibrationDialog::refreshRuns()
{
    std::map<std::string, int> counts;
    for (const core::PublishedRun& r : m_runs)
        ++counts[r.accelerator];
    const QString current = m_accelerator->currentData().toString();
    m_accelerator->clear();
    const auto runs = [this](std::size_t n) { return n == 1 ? tr("1 run") : tr("%1 runs").arg(n); };
    for (const auto& [name, n] : counts)
        m_accelerator->addItem(
            tr("%1 (%2)").arg(QString::fromStdString(name), runs(static_cast<std::size_t>(n))),
            QString::fromStdString(name));
    int chosen = m_accelerator->findData(current);
    if (chosen < 0)
        chosen = m_accelerator->findData(QString::fromStdString(m_preferredAccelerator));
    m_accelerator->setCurrentIndex(std::max(chosen, 0));
    m_runsLabel->setText(
        m_runs.empty()
            ? tr("No runs added yet.")
            : tr("%1 from %2").arg(runs(m_runs.size()), m_files.join(QStringLiteral(", "))));
    m_fit->setEnabled(!m_runs.empty() && !m_thread);
}

void CalibrationDialog::fit()
{
    if (m_thread || m_runs.empty())
        return;
    core::CalibrationOptions options;
    for (QCheckBox* box : m_parameters)
        if (box->isChecked() && !m_defaultFit)
            options.fit.push_back(box->text().toStdString());
    if (options.fit.empty() && !m_defaultFit) {
        m_result->setPlainText(tr("Choose at least one parameter to fit."));
        return;
    }
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    QPointer<QProgressBar> bar = m_progress;
    std::shared_ptr<std::atomic<bool>> cancel = m_cancel;
    options.progress = [bar, cancel](double fraction) {
        QMetaObject::invokeMethod(
            bar,
            [bar, fraction] {
                if (bar)
                    bar->setValue(static_cast<int>(1000.0 * fraction));
            },
            Qt::QueuedConnection);
        return !cancel->load();
    };
    auto outcome = std::make_shared<core::CalibrationOutcome>();
    m_thread = QThread::create([runs = m_runs,
                                accelerator = m_accelerator->currentData().toString().toStdString(),
                                options, outcome] {
        *outcome = core::calibrate(runs, core::builtinCatalog(), accelerator, options);
    });
    connect(m_thread, &QThread::finished, this, [this, outcome] { finishFit(outcome); });
    m_calibration.reset();
    m_use->setEnabled(false);
    m_fit->setEnabled(false);
    m_progress->setValue(0);
    m_progress->show();
    m_result->setPlainText(tr("Fitting…"));
    m_thread->start();
}

void CalibrationDialog::finishFit(std::shared_ptr<core::CalibrationOutcome> outcome)
{
    m_thread->wait();
    m_thread->deleteLater();
    m_thread = nullptr;
    m_outcome = outcome;
    QStringList lines;
    for (const std::string& note : outcome->notes)
        lines << tr("Note: %1").arg(QString::fromStdString(core::displayText(note)));
    if (outcome->ok()) {
        m_calibration = outcome->calibration;
        lines.prepend(QString::fromStdString(core::calibrationSummary(outcome->calibration)));
        lines << QString() << QString::fromStdString(core::calibrationReport(*outcome));
    } else {
        for (const std::string& e : outcome->errors)
            lines << tr("Cannot calibrate: %1").arg(QString::fromStdString(core::displayText(e)));
    }
    m_result->setPlainText(lines.join(QLatin1Char('\n')));
    m_progress->hide();
    m_use->setEnabled(m_calibration.has_value());
    refreshRuns();
    emit finished();
}

bool CalibrationDialog::save(const QString& path, QString* error)
{
    if (!m_calibration || !m_outcome)
        return false;
    QStringList fitted;
    for (const auto& entry : m_calibration->fitted)
        fitted << QString::fromStdString(entry.first);
    const std::string command = tr("Archipelago, Calibrate from Measured Runs: %1, %2, fit %3")
                                    .arg(m_files.join(QStringLiteral(", ")),
                                         QString::fromStdString(m_calibration->accelerator),
                                         fitted.join(QStringLiteral(",")))
                                    .toStdString();
    std::string message;
    const std::string file = QFile::encodeName(QFileInfo(path).absoluteFilePath()).toStdString();
    if (!core::writeTextFileAtomically(
            file, core::serializeCalibration(*m_calibration, m_outcome->rows, command), message)) {
        if (error)
            *error = tr("%1: %2").arg(path, QString::fromStdString(message));
        return false;
    }
    m_savedPath = QFileInfo(path).absoluteFilePath();
    m_calibration->file = file;
    return true;
}

void CalibrationDialog::saveInteractively()
{
    if (!m_calibration)
        return;
    const QString suggested = QDir(m_folder).filePath(
        QString::fromStdString(m_calibration->accelerator) + QStringLiteral("-calibration.json"));
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Calibration"), suggested,
                                                      tr("Calibration (*.json)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!save(path, &error)) {
        QMessageBox::warning(this, tr("Save Calibration"), error);
        return;
    }
    accept();
}

void CalibrationDialog::reject()
{
    if (m_thread) {
        m_cancel->store(true);
        return; // finishFit follows, and the dialog stays with "cancelled"
    }
    QDialog::reject();
}

QString CalibrationDialog::resultText() const
{
    return m_result->toPlainText();
}

} // namespace archipelago::app
