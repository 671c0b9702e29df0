// Schedule page of the property editor: the pipeline schedule and the cross-DC-aware extra
// in-flight micro-batches. Proposes through the EditSink.
#pragma once

#include "propertyeditor/propertyeditorpage.h"

namespace archipelago::views {

class ScheduleEditor : public PropertyEditorPage
{
    Q_OBJECT

public:
    explicit ScheduleEditor(EditSink* sink, QWidget* parent = nullptr);

protected:
    void loadValues() override;

private:
    void propose(const core::Schedule& schedule, FieldRow* row);

    ChoiceField* m_kind = nullptr;
    IntField* m_extraInFlight = nullptr;
    QLabel* m_bubble = nullptr;
};

} // namespace archipelago::views
