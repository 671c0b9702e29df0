#include "window/exportdata.h"

#include "common/evaluateddesign.h"
#include "document/evaluator.h"
#include "explore/sweepcsv.h"
#include "explore/sweepjson.h"
#include "io/evaluationcsv.h"
#include "io/evaluationjson.h"
#include "io/textfile.h"
#include "window/mainwindow.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

#include <vector>

namespace archipelago::app {

namespace {

// The file name is the user's bytes, which need not be UTF-8: replaced, never thrown on.
std::string dumped(const nlohmann::json& j)
{
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + '\n';
}

const char* extension(ExportFormat format)
{
    return format == ExportFormat::Json ? "json" : "csv";
}

// Part of the suggested file name: "twobuildings-comparison.csv".
const char* sourceSlug(ExportSource source)
{
    switch (source) {
    case ExportSource::Evaluation:
        return "evaluation";
    case ExportSource::Comparison:
        return "comparison";
    case ExportSource::Sweep:
        return "sweep";
    }
    return "export";
}

bool knownExtension(const QString& path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    return suffix == QLatin1String("csv") || suffix == QLatin1String("json");
}

} // namespace

bool ExportInput::has(ExportSource source) const
{
    switch (source) {
    case ExportSource::Evaluation:
        return evaluation != nullptr;
    case ExportSource::Comparison:
        return !comparison.isEmpty();
    case ExportSource::Sweep:
        return sweep.has_value() && sweep->ok;
    }
    return false;
}

ExportInput exportInputOf(const MainWindow& window, const core::SweepResult* lastSweep)
{
    ExportInput input;
    const Document* document = window.document();
    input.documentName = document->isUntitled() ? document->displayName() : document->fileName();
    input.evaluation = window.evaluator()->evaluation();
    // The pins the window shows are evaluated ones; the current point is evaluated once the
    // evaluator has published.
    for (const views::EvaluatedDesign& p : window.pinnedPoints())
        input.comparison.append(
            {p.name, p.color, p.scenario, std::make_shared<const core::Evaluation>(p.evaluation)});
    const views::EvaluatedDesign& current = window.currentPoint();
    input.comparison.append({current.name, current.color, current.scenario, input.evaluation});
    if (lastSweep)
        input.sweep = *lastSweep;
    return input;
}

ExportFormat exportFormatFor(const QString& path)
{
    return QFileInfo(path).suffix().compare(QLatin1String("json"), Qt::CaseInsensitive) == 0
               ? ExportFormat::Json
               : ExportFormat::Csv;
}

std::optional<std::string> exportText(const ExportInput& input, ExportSource source,
                                      ExportFormat format)
{
    if (!input.has(source))
        return std::nullopt;
    const std::string file = input.documentName.toStdString();
    const bool json = format == ExportFormat::Json;
    switch (source) {
    case ExportSource::Evaluation:
        return json ? dumped(core::evaluationToJson(file, *input.evaluation))
                    : core::evaluationToCsv(file, *input.evaluation);
    case ExportSource::Comparison: {
        std::vector<core::ComparedPoint> points;
        for (const ExportInput::Point& p : input.comparison)
            points.push_back({p.name.toStdString(),
                              p.color.isValid() ? p.color.name().toStdString() : std::string(),
                              &p.scenario, p.evaluation.get()});
        return json ? dumped(core::comparisonToJson(points)) : core::comparisonToCsv(points);
    }
    case ExportSource::Sweep:
        return json ? dumped(core::sweepResultToJson(file, *input.sweep))
                    : core::sweepResultToCsv(file, *input.sweep);
    }
    return std::nullopt;
}

bool writeExport(const ExportInput& input, ExportSource source, const QString& path, QString* error)
{
    const auto fail = [error](const QString& why) {
        if (error)
            *error = why;
        return false;
    };
    if (path.isEmpty())
        return fail(QObject::tr("No file name given."));
    const std::optional<std::string> text = exportText(input, source, exportFormatFor(path));
    if (!text)
        return fail(QObject::tr("There is nothing of that kind to export."));
    std::string why;
    if (!core::writeTextFileAtomically(QFile::encodeName(path).toStdString(), *text, why))
        return fail(QObject::tr("Cannot write %1: %2")
                        .arg(QDir::toNativeSeparators(path), QString::fromStdString(why)));
    return true;
}

ExportDataDialog::ExportDataDialog(ExportInput input, const QString& suggestedFolder,
                                   QWidget* parent)
    : QDialog(parent)
    , m_input(std::move(input))
    , m_folder(suggestedFolder)
{
    setWindowTitle(tr("Export Data"));
    m_source = new QComboBox(this);
    m_source->setObjectName(QStringLiteral("exportSource"));
    const int points = static_cast<int>(m_input.comparison.size());
    const int swept = m_input.sweep ? static_cast<int>(m_input.sweep->counts.feasible) : 0;
    const struct
    {
        ExportSource source;
        QString text;
        QString missing; // the tooltip when the input lacks it
    } entries[] = {
        {ExportSource::Evaluation, tr("Current evaluation"),
         tr("The scenario has not been evaluated yet")},
        {ExportSource::Comparison, tr("Pinned comparison (%n design points)", "", points),
         tr("Nothing pinned")},
        {ExportSource::Sweep,
         m_input.has(ExportSource::Sweep)
             ? tr("Last sweep (%n ranked points: top lists and fronts)", "", swept)
             : tr("Last sweep"),
         tr("No sweep has run yet (Explore)")},
    };
    auto* model = qobject_cast<QStandardItemModel*>(m_source->model());
    for (const auto& e : entries) {
        m_source->addItem(e.text, static_cast<int>(e.source));
        if (!m_input.has(e.source) && model) {
            QStandardItem* item = model->item(m_source->count() - 1);
            item->setEnabled(false);
            item->setToolTip(e.missing);
        }
    }
    for (int i = 0; i < m_source->count(); ++i)
        if (m_input.has(static_cast<ExportSource>(m_source->itemData(i).toInt()))) {
            m_source->setCurrentIndex(i);
            break;
        }

    m_format = new QComboBox(this);
    m_format->setObjectName(QStringLiteral("exportFormat"));
    m_format->addItem(tr("CSV (one row per point, for spreadsheets)"),
                      static_cast<int>(ExportFormat::Csv));
    m_format->addItem(tr("JSON (every figure, as evaluate --json)"),
                      static_cast<int>(ExportFormat::Json));

    m_path = new QLineEdit(this);
    m_path->setMinimumWidth(420);
    auto* browse = new QPushButton(tr("Browse…"), this);
    auto* fileRow = new QHBoxLayout;
    fileRow->addWidget(m_path, 1);
    fileRow->addWidget(browse);

    m_error = new QLabel(this);
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #c62828;"));
    m_error->hide();

    auto* form = new QFormLayout;
    form->addRow(tr("&Export:"), m_source);
    form->addRow(tr("&Format:"), m_format);
    auto* fileLabel = new QLabel(tr("F&ile:"), this);
    fileLabel->setBuddy(m_path); // a row of a layout gets no buddy from addRow
    form->addRow(fileLabel, fileRow);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    m_ok->setText(tr("Export"));
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(buttons);

    m_path->setText(suggestedPath());
    connect(buttons, &QDialogButtonBox::accepted, this, &ExportDataDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browse, &QPushButton::clicked, this, &ExportDataDialog::browse);
    connect(m_format, &QComboBox::currentIndexChanged, this, &ExportDataDialog::onFormatChanged);
    connect(m_source, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_pathEdited)
            m_path->setText(suggestedPath());
        updateOk();
    });
    connect(m_path, &QLineEdit::textEdited, this, &ExportDataDialog::onPathEdited);
    connect(m_path, &QLineEdit::textChanged, this, &ExportDataDialog::updateOk);
    updateOk();
}

ExportSource ExportDataDialog::source() const
{
    return static_cast<ExportSource>(m_source->currentData().toInt());
}

void ExportDataDialog::setSource(ExportSource source)
{
    if (!m_input.has(source))
        return;
    m_source->setCurrentIndex(m_source->findData(static_cast<int>(source)));
}

ExportFormat ExportDataDialog::format() const
{
    return static_cast<ExportFormat>(m_format->currentData().toInt());
}

void ExportDataDialog::setFormat(ExportFormat format)
{
    m_format->setCurrentIndex(m_format->findData(static_cast<int>(format)));
}

QString ExportDataDialog::path() const
{
    return m_path->text().trimmed();
}

void ExportDataDialog::setPath(const QString& path)
{
    m_path->setText(path);
    onPathEdited();
}

QString ExportDataDialog::errorText() const
{
    return m_error->text();
}

void ExportDataDialog::accept()
{
    QString target = path();
    // The format follows the extension; a name without one gets the chosen format's.
    if (!target.isEmpty() && !knownExtension(target))
        target += QLatin1Char('.') + QLatin1String(extension(format()));
    QString error;
    if (!writeExport(m_input, source(), target, &error)) {
        m_error->setText(error);
        m_error->show();
        return;
    }
    m_error->clear();
    m_error->hide();
    m_path->setText(target);
    QDialog::accept();
}

void ExportDataDialog::browse()
{
    const QString csv = tr("CSV (*.csv)");
    const QString json = tr("JSON (*.json)");
    QString filter = format() == ExportFormat::Json ? json : csv;
    const QString chosen = QFileDialog::getSaveFileName(this, tr("Export Data"), path(),
                                                        csv + QStringLiteral(";;") + json, &filter);
    if (chosen.isEmpty())
        return;
    QString target = chosen;
    if (!knownExtension(target))
        target += filter == json ? QStringLiteral(".json") : QStringLiteral(".csv");
    setPath(target);
}

void ExportDataDialog::onFormatChanged()
{
    // The extension follows the format: the file's name says what is in it.
    const QString current = path();
    if (current.isEmpty())
        return;
    const QFileInfo info(current);
    const QString wanted = QLatin1String(extension(format()));
    if (knownExtension(current) && info.suffix().toLower() != wanted)
        m_path->setText(current.left(current.size() - info.suffix().size()) + wanted);
}

void ExportDataDialog::onPathEdited()
{
    m_pathEdited = true;
    if (knownExtension(path())) {
        const QSignalBlocker block(m_format);
        setFormat(exportFormatFor(path()));
    }
}

void ExportDataDialog::updateOk()
{
    m_ok->setEnabled(!path().isEmpty() && m_input.has(source()));
}

QString ExportDataDialog::suggestedPath() const
{
    QString base = QFileInfo(m_input.documentName).completeBaseName();
    if (base.isEmpty())
        base = QStringLiteral("archipelago");
    const QString folder = m_folder.isEmpty() ? QDir::homePath() : m_folder;
    return QDir(folder).filePath(base + QLatin1Char('-') + QLatin1String(sourceSlug(source())) +
                                 QLatin1Char('.') + QLatin1String(extension(format())));
}

bool showExportDataDialog(QWidget* parent, ExportInput input, const QString& suggestedFolder)
{
    ExportDataDialog dialog(std::move(input), suggestedFolder, parent);
    return dialog.exec() == QDialog::Accepted;
}

} // namespace archipelago::app
