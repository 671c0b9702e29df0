// Editor widgets of the property editor: each loads a value (or "mixed" when the selected objects
// differ) without emitting, and emits committed() once per user edit: on Enter, focus-out, a
// spin-box step or a combo choice, never on every keystroke. A FieldRow shows one editor with
// the diagnostics of the JSON pointers it edits under it (red: refused, amber: warning).
//
// Numeric editors take any number typed, also below their minimum ("-4", "0"): a value out of
// range is not silently clamped or sign-stripped but emitted as outOfRange(), and its FieldRow
// refuses it with the field's rule in words ("TP must be a whole number ≥ 1 ..."). The arrows
// stop at the minimum.
#pragma once

#include "io/scenarioio.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QStringList>
#include <QWidget>

#include <functional>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

class QFormLayout;

namespace archipelago::views {

// Text shown by an editor whose selected objects hold different values.
QString mixedText();

class IntField : public QSpinBox
{
    Q_OBJECT

public:
    IntField(int minimum, int maximum, QWidget* parent = nullptr);
    void load(std::optional<int> value); // nullopt = mixed
    bool isMixed() const { return m_mixed; }

    int acceptedMinimum() const { return m_minimum; }
    int acceptedMaximum() const { return m_maximum; }

signals:
    void committed(int value);
    // A value typed below the accepted minimum or above the maximum (never committed): the
    // field takes a digit more than the maximum has, so that it is refused in words.
    void outOfRange(int value);
    // Esc gave back the value loaded or last committed.
    void reverted();

protected:
    StepEnabled stepEnabled() const override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    void setMixed(bool mixed);
    int m_minimum;
    int m_maximum;
    std::optional<int> m_loaded;
    bool m_mixed = false;
};

class DoubleField : public QDoubleSpinBox
{
    Q_OBJECT

public:
    DoubleField(double minimum, double maximum, int decimals, QWidget* parent = nullptr);
    void load(std::optional<double> value);
    bool isMixed() const { return m_mixed; }

    double acceptedMinimum() const { return m_minimum; }
    double acceptedMaximum() const { return m_maximum; }

signals:
    void committed(double value);
    void outOfRange(double value);
    void reverted();

protected:
    StepEnabled stepEnabled() const override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    void setMixed(bool mixed);
    double m_minimum;
    double m_maximum;
    std::optional<double> m_loaded;
    bool m_mixed = false;
};

// A combo of (label, value) choices; value strings are core's enum names or catalog names.
class ChoiceField : public QComboBox
{
    Q_OBJECT

public:
    explicit ChoiceField(QWidget* parent = nullptr);
    void setChoices(const std::vector<std::pair<QString, QString>>& choices);
    void load(const std::optional<QString>& value);
    QString value() const { return currentData().toString(); }
    bool isMixed() const { return currentIndex() < 0; }
    QSize minimumSizeHint() const override;

signals:
    void committed(const QString& value);

protected:
    // The current choice elided to the width ("H100-SXM5-…"); the full text in the tooltip.
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
};

// A form label that never makes its row wider than the panel: past its width cap (set by the
// page from its width, about half of it) it is elided ("Domains per pod (scale-u…"); the whole
// label is in the tooltip.
class ElidedLabel : public QLabel
{
    Q_OBJECT

public:
    explicit ElidedLabel(const QString& text, QWidget* parent = nullptr);
    void setWidthCap(int pixels);
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    bool isElided() const;
    // The lines shown in `width` pixels: the text on one line when it fits, else word-wrapped
    // onto two, the second elided ("Pipeline parallel PP" over "(stages)").
    QStringList shownLines(int width) const;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    int m_widthCap = 0; // 0: about 26 characters
};

class TextField : public QLineEdit
{
    Q_OBJECT

public:
    explicit TextField(QWidget* parent = nullptr);
    void load(const std::optional<QString>& value, const QString& emptyPlaceholder = {});
    bool isMixed() const { return m_mixed; }

signals:
    void committed(const QString& value);

private:
    QString m_loaded;
    bool m_mixed = false;
};

class CheckField : public QCheckBox
{
    Q_OBJECT

public:
    explicit CheckField(const QString& text, QWidget* parent = nullptr);
    void load(std::optional<bool> value);
    bool isMixed() const { return checkState() == Qt::PartiallyChecked; }

signals:
    void committed(bool value);
};

// One editor, the JSON pointers it edits and the message line under it.
class FieldRow : public QWidget
{
    Q_OBJECT

public:
    FieldRow(QWidget* editor, QWidget* parent = nullptr);
    QWidget* editor() const { return m_editor; }

    // Full JSON pointers of the edited values for the current selection.
    void setPointers(QStringList pointers) { m_pointers = std::move(pointers); }
    const QStringList& pointers() const { return m_pointers; }

    // The scenario's own diagnostics at these pointers (shown after every load).
    void showDiagnostics(const std::vector<core::Diagnostic>& diagnostics);
    // An edit that was refused: red frame and the reasons under the editor.
    void refuse(const QStringList& reasons);
    // The rule of a numeric field in words, for a value typed out of its range ("TP must be a
    // whole number ≥ 1 that divides ..."). Called with the value typed; the default (set by
    // addField) names the label and the range.
    void setRangeRule(std::function<QString(double)> rule) { m_rangeRule = std::move(rule); }
    QString rangeMessage(double value) const;
    // An edit that went through, with the warnings it raised (not blocking).
    void accept(const QStringList& warnings);
    void clearMessage();

    bool isRefused() const { return m_refused; }
    QString message() const;

protected:
    // Sizes the wrapped message to the row's width itself: a word-wrapped label in a form
    // layout is otherwise given a height for another width and cut off.
    void resizeEvent(QResizeEvent* event) override;

private:
    void setMessage(const QStringList& lines, bool error);
    void fitMessage(int width);
    QWidget* m_editor;
    QLabel* m_message;
    QStringList m_pointers;
    std::function<QString(double)> m_rangeRule;
    bool m_refused = false;
};

// The label of a field without its unit: "Wavelengths (λ)" -> "Wavelengths".
QString fieldName(const QString& label);

// True when `pointer` is `field` or lies inside it ("/a/b" is within "/a").
bool pointerWithin(const QString& pointer, const QString& field);

// Adds "label: row" to a form; the label carries the unit and the tooltip its meaning.
FieldRow* addField(QFormLayout* form, const QString& label, QWidget* editor,
                   const QString& toolTip);

// The common value of `get` over `items`, or nullopt when they differ (or there are none).
template <typename Items, typename Get>
auto commonValue(const Items& items, Get get)
    -> std::optional<std::decay_t<decltype(get(*items.begin()))>>
{
    using Value = std::decay_t<decltype(get(*items.begin()))>;
    std::optional<Value> value;
    for (const auto& item : items) {
        Value v = get(item);
        if (!value)
            value = v;
        else if (!(*value == v))
            return std::nullopt;
    }
    return value;
}

} // namespace archipelago::views
