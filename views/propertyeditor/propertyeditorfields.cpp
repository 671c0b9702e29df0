#include "propertyeditor/propertyeditorfields.h"

#include "common/format.h"
#include "common/textwrap.h"
#include "io/editcheck.h"

#include <QFormLayout>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLabel>
#include <QPainter>
#include <QResizeEvent>
#include <QSignalBlocker>
#include <QStyleOptionComboBox>
#include <QStylePainter>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <limits>

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
    return core::pointerWithin(pointer.toStdString(), field.toStdString());
}

// ---------------------------------------------------------------- IntField

// How far below its minimum a numeric field takes typed input, to refuse it in words rather
// than strip the sign or clamp it.
// Down to minus the maximum: wide enough for any sign slip, and the spin box's width (from
// its range's texts) stays that of the maximum.
int typedMinimum(int minimum, int maximum)
{
    return std::min(minimum, -std::max(1, maximum));
}

double typedMinimum(double minimum, double maximum)
{
    return std::min(minimum, -std::max(1.0, maximum));
}

// And how far above its maximum: one digit more, so that a value typed too large is refused in
// words instead of losing its last digits to the spin box's validator (5,000 becoming 500).
int typedMaximum(int maximum)
{
    constexpr int kMax = std::numeric_limits<int>::max();
    return maximum > (kMax - 9) / 10 ? kMax : maximum * 10 + 9;
}

double typedMaximum(double maximum)
{
    return std::min(maximum * 10.0 + 9.0, 1e15);
}

IntField::IntField(int minimum, int maximum, QWidget* parent)
    : QSpinBox(parent)
    , m_minimum(minimum)
    , m_maximum(maximum)
{
    setRange(typedMinimum(minimum, maximum), typedMaximum(maximum));
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
        if (v < m_minimum || v > m_maximum) {
            emit outOfRange(v);
            return;
        }
        m_loaded = v;
        emit committed(v);
    });
}

QAbstractSpinBox::StepEnabled IntField::stepEnabled() const
{
    StepEnabled steps = QSpinBox::stepEnabled();
    if (!m_mixed && value() <= m_minimum)
        steps &= ~StepDownEnabled;
    if (!m_mixed && value() >= m_maximum)
        steps &= ~StepUpEnabled;
    return steps;
}

void IntField::keyPressEvent(QKeyEvent* event)
{
    // Esc gives back the value shown before the edit (also after a refusal).
    if (event->key() == Qt::Key_Escape) {
        load(m_loaded);
        emit reverted();
        event->accept();
        return;
    }
    QSpinBox::keyPressEvent(event);
}

void IntField::setMixed(bool mixed)
{
    m_mixed = mixed;
    setSpecialValueText(mixed ? mixedText() : QString());
    setMinimum(mixed ? m_minimum - 1 : typedMinimum(m_minimum, m_maximum));
}

void IntField::load(std::optional<int> value)
{
    const QSignalBlocker blocker(this);
    m_loaded = value;
    setMixed(!value.has_value());
    setValue(value ? *value : minimum());
}

// ---------------------------------------------------------------- DoubleField

DoubleField::DoubleField(double minimum, double maximum, int decimals, QWidget* parent)
    : QDoubleSpinBox(parent)
    , m_minimum(minimum)
    , m_maximum(maximum)
{
    setDecimals(decimals);
    setRange(typedMinimum(minimum, maximum), typedMaximum(maximum));
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
        if (v < m_minimum || v > m_maximum) {
            emit outOfRange(v);
            return;
        }
        m_loaded = v;
        emit committed(v);
    });
}

QAbstractSpinBox::StepEnabled DoubleField::stepEnabled() const
{
    StepEnabled steps = QDoubleSpinBox::stepEnabled();
    if (!m_mixed && value() <= m_minimum)
        steps &= ~StepDownEnabled;
    if (!m_mixed && value() >= m_maximum)
        steps &= ~StepUpEnabled;
    return steps;
}

void DoubleField::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Escape) {
        load(m_loaded);
        emit reverted();
        event->accept();
        return;
    }
    QDoubleSpinBox::keyPressEvent(event);
}

void DoubleField::setMixed(bool mixed)
{
    m_mixed = mixed;
    setSpecialValueText(mixed ? mixedText() : QString());
    setMinimum(mixed ? m_minimum - 1.0 : typedMinimum(m_minimum, m_maximum));
}

void DoubleField::load(std::optional<double> value)
{
    const QSignalBlocker blocker(this);
    m_loaded = value;
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

QSize ChoiceField::minimumSizeHint() const
{
    // Narrow enough for a narrow panel: the choice is elided, not clipped.
    QSize size = QComboBox::minimumSizeHint();
    const int narrow = fontMetrics().averageCharWidth() * 10 + iconSize().width() + 24;
    size.setWidth(std::min(size.width(), narrow));
    return size;
}

void ChoiceField::paintEvent(QPaintEvent*)
{
    QStylePainter painter(this);
    painter.setPen(palette().color(QPalette::Text));
    QStyleOptionComboBox option;
    initStyleOption(&option);
    painter.drawComplexControl(QStyle::CC_ComboBox, option);
    const QRect text =
        style()->subControlRect(QStyle::CC_ComboBox, &option, QStyle::SC_ComboBoxEditField, this);
    const QString full = option.currentText;
    option.currentText = fontMetrics().elidedText(full, Qt::ElideRight, text.width() - 4);
    painter.drawControl(QStyle::CE_ComboBoxLabel, option);
}

bool ChoiceField::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip && !currentText().isEmpty()) {
        // The choice itself first: the box may show it elided.
        const auto* help = static_cast<QHelpEvent*>(event);
        const QString meaning = toolTip();
        QToolTip::showText(help->globalPos(),
                           meaning.isEmpty() ? currentText()
                                             : currentText() + QStringLiteral("\n\n") + meaning,
                           this);
        return true;
    }
    return QComboBox::event(event);
}

// ---------------------------------------------------------------- ElidedLabel

ElidedLabel::ElidedLabel(const QString& text, QWidget* parent)
    : QLabel(text, parent)
{
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
}

void ElidedLabel::setWidthCap(int pixels)
{
    if (pixels == m_widthCap)
        return;
    m_widthCap = pixels;
    updateGeometry();
}

QSize ElidedLabel::sizeHint() const
{
    QSize size = QLabel::sizeHint();
    const int cap = m_widthCap > 0 ? m_widthCap : fontMetrics().averageCharWidth() * 26;
    size.setWidth(std::min(size.width(), cap));
    // Tall enough for the lines it wraps onto at that width (a form layout asks labels for their
    // size hint, not their height for a width).
    size.setHeight(std::max(size.height(), heightForWidth(size.width())));
    return size;
}

QSize ElidedLabel::minimumSizeHint() const
{
    QSize size = QLabel::minimumSizeHint();
    size.setWidth(std::min(size.width(), fontMetrics().averageCharWidth() * 8));
    size.setHeight(sizeHint().height());
    return size;
}

QStringList ElidedLabel::shownLines(int width) const
{
    return twoLines(text(), fontMetrics(), width);
}

int ElidedLabel::heightForWidth(int width) const
{
    const QMargins margins = contentsMargins();
    const auto lines = shownLines(width - margins.left() - margins.right()).size();
    return static_cast<int>(lines) * fontMetrics().lineSpacing() + margins.top() + margins.bottom();
}

bool ElidedLabel::isElided() const
{
    return shownLines(contentsRect().width()).join(QLatin1Char(' ')) != text();
}

void ElidedLabel::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    const QRect rect = contentsRect();
    const QStringList lines = shownLines(rect.width());
    const int lineHeight = fontMetrics().lineSpacing();
    // The block of lines centred as one line would be (the row's field sets its height).
    int top =
        rect.top() + std::max(0, (rect.height() - lineHeight * static_cast<int>(lines.size())) / 2);
    for (const QString& line : lines) {
        const QRect lineRect(rect.left(), top, rect.width(), lineHeight);
        style()->drawItemText(&painter, lineRect,
                              static_cast<int>(alignment() & Qt::AlignHorizontal_Mask) |
                                  Qt::AlignVCenter | Qt::TextSingleLine,
                              palette(), isEnabled(), line, foregroundRole());
        top += lineHeight;
    }
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
    // Findings first, then the rules they break (each once: several TP findings share one).
    QStringList shown, rules;
    for (const QString& line : lines) {
        const QStringList parts = line.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        for (qsizetype i = 0; i < parts.size(); ++i) {
            QStringList& list = i == 0 ? shown : rules;
            if (!list.contains(parts[i]))
                list << parts[i];
        }
    }
    // Two findings say enough: the rule after them covers the rest.
    if (!rules.isEmpty() && shown.size() > 2)
        shown.erase(shown.begin() + 2, shown.end());
    for (const QString& rule : rules)
        if (!shown.contains(rule))
            shown << rule;
    // Several reasons read better as a list.
    if (shown.size() > 1)
        for (QString& line : shown)
            line.prepend(QStringLiteral("• "));
    m_message->setText(shown.join(QLatin1Char('\n')));
    m_message->setVisible(!lines.isEmpty());
    fitMessage(width());
}

void FieldRow::fitMessage(int width)
{
    if (m_message->isHidden() || width <= 0)
        return;
    const int height = m_message->heightForWidth(width);
    if (height > 0 && height != m_message->height())
        m_message->setFixedHeight(height);
}

void FieldRow::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitMessage(event->size().width());
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

QString fieldName(const QString& label)
{
    const qsizetype open = label.indexOf(QLatin1String(" ("));
    return open > 0 ? label.left(open) : label;
}

QString FieldRow::rangeMessage(double value) const
{
    return m_rangeRule ? m_rangeRule(value) : QString();
}

FieldRow* addField(QFormLayout* form, const QString& label, QWidget* editor, const QString& toolTip)
{
    auto* row = new FieldRow(editor);
    auto* title = new ElidedLabel(label);
    title->setBuddy(editor);
    title->setToolTip(toolTip.isEmpty() ? label : label + QStringLiteral("\n") + toolTip);
    editor->setToolTip(toolTip);
    form->addRow(title, row);
    // A number out of range is refused with the field's rule, in words.
    const QString name = fieldName(label);
    const qsizetype open = label.indexOf(QLatin1String(" ("));
    const QString unit = open > 0 ? label.mid(open + 2).chopped(1) : QString();
    if (auto* field = qobject_cast<IntField*>(editor)) {
        row->setRangeRule([name, field](double typed) {
            return QObject::tr("%1 must be a whole number from %2 to %3; %4 is not.")
                .arg(name, formatCount(field->acceptedMinimum()),
                     formatCount(field->acceptedMaximum()),
                     formatCount(static_cast<std::int64_t>(typed)));
        });
        QObject::connect(field, &IntField::outOfRange, row,
                         [row](int typed) { row->refuse({row->rangeMessage(typed)}); });
        QObject::connect(field, &IntField::reverted, row, &FieldRow::clearMessage);
    } else if (auto* number = qobject_cast<DoubleField*>(editor)) {
        row->setRangeRule([name, unit, number](double typed) {
            const auto text = [number](double v) { return formatNumber(v, number->decimals()); };
            const QString range =
                unit.isEmpty() || unit == QLatin1String("%")
                    ? QObject::tr("from %1 to %2")
                          .arg(text(number->acceptedMinimum()), text(number->acceptedMaximum()))
                    : QObject::tr("from %1 to %2 %3")
                          .arg(text(number->acceptedMinimum()), text(number->acceptedMaximum()),
                               unit);
            return QObject::tr("%1 must be %2; %3 is not.").arg(name, range, text(typed));
        });
        QObject::connect(number, &DoubleField::outOfRange, row,
                         [row](double typed) { row->refuse({row->rangeMessage(typed)}); });
        QObject::connect(number, &DoubleField::reverted, row, &FieldRow::clearMessage);
    }
    return row;
}

} // namespace archipelago::views
