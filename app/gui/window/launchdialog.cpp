#include "window/launchdialog.h"

#include "io/scenarioio.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace archipelago::app {

LaunchDialog::LaunchDialog(core::Scenario scenario, core::Evaluation evaluation, QString folder,
                           QString baseName, QWidget* parent)
    : QDialog(parent)
    , m_scenario(std::move(scenario))
    , m_catalog(core::effectiveCatalog(m_scenario))
    , m_evaluation(std::move(evaluation))
    , m_folder(std::move(folder))
    , m_baseName(std::move(baseName))
{
    setWindowTitle(tr("Export Launch Settings"));
    m_framework = new QComboBox(this);
    m_framework->setObjectName(QStringLiteral("launchFramework"));
    for (core::Framework f :
         {core::Framework::MegatronLm, core::Framework::Nemo, core::Framework::TorchTitan})
        m_framework->addItem(QStringLiteral("%1 %2").arg(QString::fromUtf8(core::displayName(f)),
                                                         QString::fromUtf8(core::pinnedRelease(f))),
                             static_cast<int>(f));
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("launchSummary"));
    m_summary->setWordWrap(true);
    m_preview = new QPlainTextEdit(this);
    m_preview->setObjectName(QStringLiteral("launchPreview"));
    m_preview->setReadOnly(true);
    m_preview->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_preview->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

    auto* top = new QHBoxLayout;
    auto* label = new QLabel(tr("&Framework:"), this);
    label->setBuddy(m_framework);
    top->addWidget(label);
    top->addWidget(m_framework, 1);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton* copy = buttons->addButton(tr("&Copy"), QDialogButtonBox::ActionRole);
    copy->setToolTip(tr("Copy the script to the clipboard"));
    QPushButton* save = buttons->addButton(tr("&Save…"), QDialogButtonBox::AcceptRole);
    save->setObjectName(QStringLiteral("launchSave"));
    save->setToolTip(tr("Write the script for sbatch to a file"));
    save->setDefault(true);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(copy, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(scriptText()); });
    // Save keeps the dialog open until a file is written (QDialogButtonBox would accept).
    disconnect(buttons, &QDialogButtonBox::accepted, nullptr, nullptr);
    connect(save, &QPushButton::clicked, this, &LaunchDialog::saveInteractively);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_summary);
    layout->addWidget(m_preview, 1);
    layout->addWidget(buttons);
    resize(900, 640);

    connect(m_framework, &QComboBox::currentIndexChanged, this, &LaunchDialog::refresh);
    refresh();
}

core::Framework LaunchDialog::framework() const
{
    return static_cast<core::Framework>(m_framework->currentData().toInt());
}

void LaunchDialog::setFramework(core::Framework framework)
{
    m_framework->setCurrentIndex(m_framework->findData(static_cast<int>(framework)));
}

QString LaunchDialog::scriptText() const
{
    return m_preview->toPlainText();
}

QString LaunchDialog::summaryText() const
{
    return m_summary->text();
}

void LaunchDialog::refresh()
{
    const core::LaunchPlan plan =
        core::launchPlan(m_scenario, m_catalog, m_evaluation, framework());
    const QLocale locale;
    const auto count = [&](std::size_t n, const QString& one, const QString& many) {
        return n == 1 ? one : many.arg(locale.toString(static_cast<qulonglong>(n)));
    };
    QStringList parts;
    parts << tr("%1 GPUs in %2")
                 .arg(locale.toString(static_cast<qlonglong>(plan.ranks.worldSize)),
                      count(plan.ranks.buildings.size(), tr("1 building"), tr("%1 buildings")));
    parts << count(plan.settings.size(), tr("1 setting"), tr("%1 settings"));
    if (!plan.environment.empty())
        parts << count(plan.environment.size(), tr("1 environment variable"),
                       tr("%1 environment variables"));
    QString summary = parts.join(QStringLiteral(", ")) + QLatin1Char('.');
    if (!plan.unexpressed.empty())
        summary += QLatin1Char(' ') +
                   count(plan.unexpressed.size(),
                         tr("<b>1 knob the framework cannot express</b> is listed at the top"),
                         tr("<b>%1 knobs the framework cannot express</b> are listed at the top")) +
                   tr(": the job will differ from the design there.");
    if (!m_evaluation.fitsInMemory)
        summary +=
            QLatin1Char(' ') + tr("<b>The model predicts this design does not fit in memory.</b>");
    m_summary->setText(summary);
    m_preview->setPlainText(
        QString::fromStdString(core::renderLaunchPlan(plan, ARCHIPELAGO_VERSION)));
}

bool LaunchDialog::saveTo(const QString& path, QString* error)
{
    std::string why;
    if (core::writeLaunchScript(QFile::encodeName(path).toStdString(), scriptText().toStdString(),
                                why))
        return true;
    if (error)
        *error = tr("Cannot write %1: %2")
                     .arg(QDir::toNativeSeparators(path), QString::fromStdString(why));
    return false;
}

void LaunchDialog::saveInteractively()
{
    const QString suggested = m_folder + QLatin1Char('/') + m_baseName + QLatin1Char('-') +
                              QString::fromUtf8(core::toString(framework())) +
                              QStringLiteral(".sh");
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Launch Settings"), suggested,
                                                      tr("Shell script for sbatch (*.sh)"));
    if (path.isEmpty())
        return;
    QString error;
    if (saveTo(path, &error))
        accept();
    else
        QMessageBox::warning(this, tr("Export Launch Settings"), error);
}

} // namespace archipelago::app
