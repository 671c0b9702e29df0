// The Explore panel's search space as fields: each dimension a checkbox (searched, or kept at
// the scenario's value) and its values as text ("1, 2, 4, 8"; "clos/rail-only" for one kind per
// datacenter or boundary), then the constraints (budgets, DCI bounds, GPUs per datacenter, the
// global batch fixed or a range). space() reads them back with explore/spacejson, the reader of
// `sweep --space`, and says what is wrong in the user's words ("TP, value 2: ...").
#pragma once

#include "explore/searchspace.h"

#include <QWidget>

#include <optional>
#include <vector>

class QCheckBox;
class QLineEdit;

namespace archipelago::app {

class Document;

class ExploreSpaceEditor : public QWidget
{
    Q_OBJECT

public:
    // Reads the document's scenario for the values of unchecked dimensions and the batch.
    explicit ExploreSpaceEditor(const Document* document, QWidget* parent = nullptr);
    ~ExploreSpaceEditor() override;

    // The space the fields describe, or nullopt with the reason in the user's words.
    std::optional<core::SearchSpace> space(QString* error = nullptr) const;
    // Fills the fields from `space` (dimensions with more than one value checked).
    void setSpace(const core::SearchSpace& space);
    // The text field and the checkbox of a dimension, by its --space key ("tp", "schedule").
    QLineEdit* valuesEdit(const QString& key) const;
    QCheckBox* dimensionCheck(const QString& key) const;
    // No edits while a sweep runs.
    void setLocked(bool locked);

signals:
    // A field changed (the space may have another size, or be invalid).
    void edited();

private:
    struct Dimension;

    const Document* m_document;
    std::vector<Dimension> m_dimensions;
    QLineEdit* m_capexBudget = nullptr;
    QLineEdit* m_powerBudget = nullptr;
    QLineEdit* m_dciCapacity = nullptr;
    QLineEdit* m_dciUtilisation = nullptr;
    QLineEdit* m_gpuCaps = nullptr;
    QCheckBox* m_batchFixed = nullptr;
    QLineEdit* m_batchMin = nullptr;
    QLineEdit* m_batchMax = nullptr;
};

} // namespace archipelago::app
