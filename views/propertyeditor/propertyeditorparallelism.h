// Parallelism page of the property editor: the degrees (DP derived, read-only), memory options,
// overlap switches and the placement basics (rank order, layers per stage, a summary of the
// shards). Changing TP, CP or PP lets the placement be re-made to fit (adaptPlacement), so the
// degrees and the placement change as one edit.
#pragma once

#include "common/crossingchoices.h"
#include "propertyeditor/propertyeditorpage.h"

#include <vector>

namespace archipelago::views {

class ParallelismEditor : public PropertyEditorPage
{
    Q_OBJECT

public:
    explicit ParallelismEditor(EditSink* sink, QWidget* parent = nullptr);

    // For tests and tools: the editor of a degree ("tp", "cp", "pp", "ep", ...).
    IntField* intField(const QString& key) const;

protected:
    void loadValues() override;

private:
    struct IntBinding
    {
        QString key;
        IntField* field;
        int core::Parallelism::*member;
    };
    struct CheckBinding
    {
        CheckField* field;
        bool core::Parallelism::*member;
        bool core::OverlapOptions::*overlapMember;
    };
    void addInt(QFormLayout* form, const QString& label, const QString& toolTip, const QString& key,
                int minimum, int maximum, int core::Parallelism::*member, bool adaptsPlacement);
    void addCheck(QFormLayout* form, const QString& label, const QString& toolTip,
                  const QString& key, bool core::Parallelism::*member,
                  bool core::OverlapOptions::*overlapMember = nullptr);
    void addSyncInt(QFormLayout* form, const QString& label, const QString& toolTip,
                    const QString& key, int minimum, int maximum,
                    int core::DatacenterSyncOptions::*member);
    void propose(const core::Parallelism& parallelism, FieldRow* row, bool adaptsPlacement);
    void proposePlacement(const core::Placement& placement, FieldRow* row);
    void commitRankOrder(const QString& text);
    void commitLayersPerStage(const QString& text);

    std::vector<IntBinding> m_ints;
    std::vector<CheckBinding> m_checks;
    struct SyncIntBinding
    {
        IntField* field;
        int core::DatacenterSyncOptions::*member;
    };
    std::vector<SyncIntBinding> m_syncInts;
    ChoiceField* m_syncScheme = nullptr;
    ChoiceField* m_outerBits = nullptr;
    QLabel* m_syncNote = nullptr;
    ChoiceField* m_recompute = nullptr;
    ChoiceField* m_gradReduceDtype = nullptr;
    QLabel* m_dp = nullptr;
    QLabel* m_microBatches = nullptr;
    ChoiceField* m_crossing = nullptr;
    FieldRow* m_crossingRow = nullptr;
    std::vector<CrossingChoice> m_crossingChoices; // what m_crossing lists, by index
    TextField* m_rankOrder = nullptr;
    FieldRow* m_rankOrderRow = nullptr;
    TextField* m_layersPerStage = nullptr;
    FieldRow* m_layersPerStageRow = nullptr;
    QLabel* m_shards = nullptr;
};

} // namespace archipelago::views
