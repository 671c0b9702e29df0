// Workload page of the property editor: a pick list of published model shapes
// (core/model/modelshapes.h), the transformer's shape, the MoE block, batch, precision and the
// training length. Proposes through the EditSink.
#pragma once

#include "propertyeditor/propertyeditorpage.h"

#include <vector>

namespace archipelago::views {

class WorkloadEditor : public PropertyEditorPage
{
    Q_OBJECT

public:
    explicit WorkloadEditor(EditSink* sink, QWidget* parent = nullptr);

    // For tests and tools: the pick list of published model shapes.
    ChoiceField* modelField() const { return m_model; }

protected:
    void loadValues() override;

private:
    struct IntBinding
    {
        IntField* field;
        int core::Workload::*member; // null for an MoE field
        int core::MoeConfig::*moeMember;
    };
    void propose(const core::Workload& workload, FieldRow* row);
    void addInt(QFormLayout* form, const QString& label, const QString& toolTip, const QString& key,
                int minimum, int maximum, int core::Workload::*member,
                int core::MoeConfig::*moeMember = nullptr);

    std::vector<IntBinding> m_ints;
    ChoiceField* m_model = nullptr;
    FieldRow* m_modelRow = nullptr;
    TextField* m_name = nullptr;
    ChoiceField* m_activation = nullptr;
    ChoiceField* m_precision = nullptr;
    DoubleField* m_trainTokens = nullptr;
    DoubleField* m_checkpointInterval = nullptr;
    CheckField* m_checkpointAsynchronous = nullptr;
    CheckField* m_checkpointRemoteReplica = nullptr;
    QLabel* m_tokensPerIteration = nullptr;
};

} // namespace archipelago::views
