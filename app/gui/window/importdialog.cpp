#include "window/importdialog.h"

#include "io/diagnosticsink.h"
#include "io/textfile.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace archipelago::app {

ImportDialog::ImportDialog(core::Scenario base, QWidget* parent)
    : QDialog(parent)
    , m_base(std::move(base))
{
    setWindowTitle(tr("Import Launch Settings"));
    m_framework = new QComboBox(this);
    m_framework->setObjectName(QStringLiteral("importFramework"));
    for (core::Framework f :
         {core::Framework::MegatronLm, core::Framework::Nemo, core::Framework::TorchTitan})
        m_framework->addItem(QString::fromUtf8(core::displayName(f)), static_cast<int>(f));
    m_text = new QPlainTextEdit(this);
    m_text->setObjectName(QStringLiteral("importText"));
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setPlaceholderText(
        tr("Paste a command line or a launch script (python pretrain_gpt.py --tensor-model-"
           "parallel-size 8 …), NeMo overrides or a recipe YAML, or a TorchTitan TOML job "
           "file. The settings replace the design's workload and parallelism; the topology "
           "stays."));
    m_report = new QLabel(this);
    m_report->setObjectName(QStringLiteral("importReport"));
    m_report->setWordWrap(true);
    m_report->setTextFormat(Qt::PlainText);
    m_report->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* top = new QHBoxLayout;
    auto* label = new QLabel(tr("&Framework:"), this);
    label->setBuddy(m_framework);
    top->addWidget(label);
    top->addWidget(m_framework, 1);
    auto* open = new QPushButton(tr("&Open File…"), this);
    open->setToolTip(tr("Read a launch script, a NeMo recipe YAML or a TorchTitan TOML"));
    top->addWidget(open);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_import = buttons->addButton(tr("&Import"), QDialogButtonBox::AcceptRole);
    m_import->setObjectName(QStringLiteral("importAccept"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(open, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open Launch Settings"), QString(),
            tr("Launch settings (*.sh *.yaml *.yml *.toml *.txt);;All files (*)"));
        QString error;
        if (!path.isEmpty() && !openFile(path, &error))
            QMessageBox::warning(this, tr("Open Launch Settings"), error);
    });

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_report);
    layout->addWidget(buttons);
    resize(820, 560);

    m_text->setFocus(); // the paste goes where the dialog opens
    connect(m_framework, &QComboBox::currentIndexChanged, this, &ImportDialog::refresh);
    connect(m_text, &QPlainTextEdit::textChanged, this, [this] {
        m_source = QStringLiteral("pasted text");
        refresh();
    });
    refresh();
}

core::Framework ImportDialog::framework() const
{
    return static_cast<core::Framework>(m_framework->currentData().toInt());
}

void ImportDialog::setFramework(core::Framework framework)
{
    m_framework->setCurrentIndex(m_framework->findData(static_cast<int>(framework)));
}

void ImportDialog::setText(const QString& text)
{
    m_text->setPlainText(text);
}

QString ImportDialog::reportText() const
{
    return m_report->text();
}

bool ImportDialog::openFile(const QString& path, QString* error)
{
    const std::string file = QFile::encodeName(path).toStdString();
    core::DiagnosticSink sink(file);
    const std::optional<std::string> text =
        core::readTextFile(file, sink, "a launch settings file");
    if (!text) {
        if (error && !sink.errors().empty())
            *error = QString::fromStdString(sink.errors().front().toString());
        return false;
    }
    // The framework a file's kind implies; a script keeps the one chosen.
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("toml"))
        setFramework(core::Framework::TorchTitan);
    else if (suffix == QLatin1String("yaml") || suffix == QLatin1String("yml"))
        setFramework(core::Framework::Nemo);
    m_text->setPlainText(QString::fromStdString(*text));
    m_source = QFileInfo(path).fileName();
    refresh();
    return true;
}

void ImportDialog::refresh()
{
    const std::string text = m_text->toPlainText().toStdString();
    m_import->setEnabled(false);
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
        m_result = {};
        m_report->setText(tr("Nothing to import yet."));
        return;
    }
    m_result = core::importLaunchSettings(framework(), text, m_base, m_source.toStdString());
    QStringList lines;
    for (const core::Diagnostic& d : m_result.errors)
        lines << tr("Cannot import: %1").arg(QString::fromStdString(d.toString()));
    for (const std::string& a : m_result.applied)
        lines << tr("Sets %1").arg(QString::fromStdString(a));
    for (const std::string& n : m_result.notes)
        lines << tr("Note: %1").arg(QString::fromStdString(n));
    if (!m_result.ignored.empty()) {
        QStringList ignored;
        for (const std::string& i : m_result.ignored)
            ignored << QString::fromStdString(core::displayText(i));
        constexpr qsizetype kShown = 8;
        QString list = ignored.mid(0, kShown).join(QStringLiteral(", "));
        if (ignored.size() > kShown)
            list += tr(" and %1 more").arg(ignored.size() - kShown);
        lines << tr("Ignored (no knob in the model): %1").arg(list);
    }
    m_report->setText(lines.join(QLatin1Char('\n')));
    m_import->setEnabled(m_result.scenario.has_value());
}

} // namespace archipelago::app
