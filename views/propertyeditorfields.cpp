#include "propertyeditorfields.h"

#include <QFormLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <QWheelEvent>

namespace archipelago::views {

namespace {

// A spin box or combo inside a scrolled panel must not change under a passing wheel: only the
// focused editor takes wheel steps, the others let the panel scroll.
class WheelGuard : public QObject
{
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        auto* widget = qobject_cast<QWidget*>(watched);
        if (event->type() == QEvent::Wheel && widget && !widget->hasFocus()) {
            event->ignore();
            return true;
        }
        return QObject::eventFilter(watched, event);
    }
};

void guardWheel(QWidget* widget)
{
    widget->setFocusPolicy(Qt::StrongFocus);
    widget->installEventFilter(new WheelGuard(widget));
}

QColor blend(const QColor& a, const QColor& b, double t)
{
    return QColor::fromRgbF(static_cast<float>(a.redF() * (1 - t) + b.redF() * t),
                            static_cast<float>(a.greenF() * (1 - t) + b.greenF() * t),
                            static_cast<float>(a.blueF() * (1 - t) + b.blueF() * t));
}

const QColor kErrorColor(198, 40, 40);
const QColor kWarningColor(178, 106, 0);

} // namespace

QString mixedText()
{
    return QObject::tr("mixed");
}

bool pointerWithin(const QString& pointer, const QString& field)
{
    return pointer == field || (pointer.startsWith(field) && pointer.size() > field.size() &&
                                pointer.at(field.size()) == QLatin1Char('/'));
}

// ---------------------------------------------------------------- IntField

IntField::IntField(int minimum, int maximum, QWidget* parent)
    : QSpinBox(parent)
    , m_minimum(minimum)
{
    setRange(minimum, maximum);
    setKeyboardTracking(false); // valueChanged on Enter, focus-out and steps only
    setGroupSeparatorShown(true);
    setAccelerated(true);
    guardWheel(this);
    connect(this, &QSpinBox::valueChanged, this, [this](int v) {
        if (m_mixed) {
            if (v < m_minimum)
                return; // still showing "mixed"
            setMixed(false);
        }
        emit committed(v);
    });
}

void IntField::setMixed(bool mixed)
{
    m_mixed = mixed;
    setSpecialValueText(mixed ? mixedText() : QString());
    setMinimum(mixed ? m_minimum - 1 : m_minimum);
}

void IntField::load(std::optional<int> value)
{
    const QSignalBlocker blocker(this);
    setMixed(!value.has_value());
    setValue(value ? *value : minimum());
}

// ---------------------------------------------------------------- DoubleField

DoubleField::DoubleField(double minimum, double maximum, int decimals, QWidget* parent)
    : QDoubleSpinBox(parent)
    , m_minimum(minimum)
{
    setDecimals(decimals);
    setRange(minimum, maximum);
    setKeyboardTracking(false);
    setGroupSeparatorShown(true);
    setAccelerated(true);
    guardWheel(this);
    connect(this, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        if (m_mixed) {
            if (v < m_minimum)
                return;
            setMixed(false);
        }
        emit committed(v);
    });
}

void DoubleField::setMixed(bool mixed)
{
    m_mixed = mixed;
    setSpecialValueText(mixed ? mixedText() : QString());
    setMinimum(mixed ? m_minimum - 1.0 : m_minimum);
}

void DoubleField::load(std::optional<double> value)
{
    const QSignalBlocker blocker(this);
    setMixed(!value.has_value());
    setValue(value ? *value : minimum());
}

// ---------------------------------------------------------------- ChoiceField

ChoiceField::ChoiceField(QWidget* parent)
    : QComboBox(parent)
{
    setPlaceholderText(mixedText());
    setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    setMinimumContentsLength(12);
    guardWheel(this);
    connect(this, &QComboBox::activated, this,
            [this](int index) { emit committed(itemData(index).toString()); });
}

void ChoiceField::setChoices(const std::vector<std::pair<QString, QString>>& choices)
{
    const QSignalBlocker blocker(this);
    clear();
    for (const auto& [label, value] : choices)
        addItem(label, value);
}

void ChoiceField::load(const std::optional<QString>& value)
{
    const QSignalBlocker blocker(this);
    if (!value) {
        setCurrentIndex(-1);
        return;
    }
    int index = findData(*value);
    if (index < 0) {
        addItem(tr("%1 (not in the catalog)").arg(*value), *value);
        index = count() - 1;
    }
    setCurrentIndex(index);
}

// ---------------------------------------------------------------- TextField

TextField::TextField(QWidget* parent)
    : QLineEdit(parent)
{
    connect(this, &QLineEdit::editingFinished, this, [this] {
        if (m_mixed ? text().isEmpty() : text() == m_loaded)
            return;
        m_loaded = text();
        m_mixed = false;
        emit committed(text());
    });
}

void TextField::load(const std::optional<QString>& value, const QString& emptyPlaceholder)
{
    const QSignalBlocker blocker(this);
    m_mixed = !value.has_value();
    m_loaded = value.value_or(QString());
    setText(m_loaded);
    setCursorPosition(0); // a long list reads from its start
    setPlaceholderText(m_mixed ? mixedText() : emptyPlaceholder);
}

// ---------------------------------------------------------------- CheckField

CheckField::CheckField(const QString& text, QWidget* parent)
    : QCheckBox(text, parent)
{
    connect(this, &QCheckBox::clicked, this, [this] {
        setTristate(false); // a click on "mixed" decides for the whole selection
        emit committed(isChecked());
    });
}

void CheckField::load(std::optional<bool> value)
{
    const QSignalBlocker blocker(this);
    setTristate(!value.has_value());
    setCheckState(!value ? Qt::PartiallyChecked : *value ? Qt::Checked : Qt::Unchecked);
}

// ---------------------------------------------------------------- FieldRow

FieldRow::FieldRow(QWidget* editor, QWidget* parent)
    : QWidget(parent)
    , m_editor(editor)
    , m_message(new QLabel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(1);
    layout->addWidget(editor);
    layout->addWidget(m_message);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont small = m_message->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    m_message->setFont(small);
    m_message->hide();
}

QString FieldRow::message() const
{
    return m_message->isHidden() ? QString() : m_message->text();
}

void FieldRow::setMessage(const QStringList& lines, bool error)
{
    m_refused = false;
    m_editor->setProperty("invalid", error && !lines.isEmpty());
    if (error && !lines.isEmpty()) {
        QPalette palette = m_editor->palette();
        const QColor base = palette.color(QPalette::Base);
        palette.setColor(QPalette::Base, blend(base, kErrorColor, 0.22));
        m_editor->setPalette(palette);
    } else {
        m_editor->setPalette(QPalette());
    }
    QPalette labelPalette = m_message->palette();
    labelPalette.setColor(QPalette::WindowText, error ? kErrorColor : kWarningColor);
    m_message->setPalette(labelPalette);
    // Several reasons read better as a list.
    QStringList shown = lines;
    if (shown.size() > 1)
        for (QString& line : shown)
            line.prepend(QStringLiteral("• "));
    m_message->setText(shown.join(QLatin1Char('\n')));
    m_message->setVisible(!lines.isEmpty());
}

void FieldRow::showDiagnostics(const std::vector<core::Diagnostic>& diagnostics)
{
    QStringList errors, warnings;
    for (const core::Diagnostic& d : diagnostics) {
        const QString pointer = QString::fromStdString(d.pointer);
        for (const QString& field : m_pointers) {
            if (!pointerWithin(pointer, field))
                continue;
            QStringList& list = d.severity == core::Diagnostic::Severity::Error ? errors : warnings;
            const QString text = QString::fromStdString(d.message);
            if (!list.contains(text))
                list << text;
            break;
        }
    }
    if (!errors.isEmpty())
        setMessage(errors + warnings, true);
    else
        setMessage(warnings, false);
}

void FieldRow::refuse(const QStringList& reasons)
{
    setMessage(reasons, true);
    m_refused = true;
}

void FieldRow::accept(const QStringList& warnings)
{
    setMessage(warnings, false);
}

void FieldRow::clearMessage()
{
    setMessage({}, false);
}

FieldRow* addField(QFormLayout* form, const QString& label, QWidget* editor, const QString& toolTip)
{
    auto* row = new FieldRow(editor);
    auto* title = new QLabel(label);
    title->setBuddy(editor);
    title->setToolTip(toolTip);
    editor->setToolTip(toolTip);
    form->addRow(title, row);
    return row;
}

} // namespace archipelago::views
