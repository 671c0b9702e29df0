// DCI link page of the property editor: distance, capacity (wavelengths × rate), optic, line
// system, transport and its loss / window / segment / in-flight bytes / PFC headroom /
// connections, for the whole selection at once.
// Emits Intent::Links with every selected link.
#pragma once

#include "propertyeditorpage.h"

#include <functional>

namespace archipelago::views {

class LinkEditor : public PropertyEditorPage
{
    Q_OBJECT

public:
    explicit LinkEditor(EditSink* sink, QWidget* parent = nullptr);

    // For tests and tools.
    DoubleField* distanceField() const { return m_distance; }

protected:
    void loadValues() override;

private:
    void editLinks(FieldRow* row, const std::function<void(core::DciLink&)>& apply);
    FieldRow* addDouble(QFormLayout* form, DoubleField*& field, const QString& label,
                        const QString& toolTip, const QString& key, double minimum, double maximum,
                        int decimals, double scale, double core::DciLink::*member);

    struct DoubleBinding
    {
        DoubleField* field;
        FieldRow* row;
        QString key;
        double scale; // shown = stored * scale
        double core::DciLink::*member;
    };
    std::vector<DoubleBinding> m_doubles;
    std::vector<const core::DciLink*> selectedLinks() const;

    QLabel* m_endpoints = nullptr;
    DoubleField* m_distance = nullptr;
    QLabel* m_latency = nullptr;
    IntField* m_wavelengths = nullptr;
    FieldRow* m_wavelengthsRow = nullptr;
    DoubleField* m_rate = nullptr;
    QLabel* m_capacity = nullptr;
    ChoiceField* m_optic = nullptr;
    FieldRow* m_opticRow = nullptr;
    ChoiceField* m_lineSystem = nullptr;
    FieldRow* m_lineSystemRow = nullptr;
    ChoiceField* m_transport = nullptr;
    FieldRow* m_transportRow = nullptr;
    DoubleField* m_equipmentLatency = nullptr;
    DoubleField* m_loss = nullptr;
    DoubleField* m_window = nullptr;
    DoubleField* m_mss = nullptr;
    DoubleField* m_outstanding = nullptr;
    DoubleField* m_headroom = nullptr;
    IntField* m_connections = nullptr;
    FieldRow* m_connectionsRow = nullptr;
};

} // namespace archipelago::views
