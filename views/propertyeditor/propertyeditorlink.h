// DCI link page of the property editor: distance and optical protection, capacity (wavelengths ×
// rate), optic, line system, transport and its loss / window / segment / PFC headroom, and NCCL's
// connections on the link (buffer, channels, send/recv channels and chunk, QPs per connection), for
// the whole selection at once. Proposes every selected link edited at once.
#pragma once

#include "propertyeditor/propertyeditorpage.h"

#include <functional>

namespace archipelago::views {

class LinkEditor : public PropertyEditorPage
{
    Q_OBJECT

public:
    explicit LinkEditor(EditSink* sink, QWidget* parent = nullptr);

    // For tests and tools.
    DoubleField* distanceField() const { return m_distance; }
    IntField* ncclChannelsField() const { return m_channels; }
    DoubleField* ncclBufferField() const { return m_buffsize; }
    QLabel* latencyLabel() const { return m_latency; }
    CheckField* protectionField() const { return m_protection; }

protected:
    void loadValues() override;

private:
    void editLinks(FieldRow* row, const std::function<void(core::DciLink&)>& apply);
    // A stored number of a link: the link's own member or one of its NCCL settings.
    using DoubleRef = double& (*)(core::DciLink&);
    using IntRef = int& (*)(core::DciLink&);
    FieldRow* addDouble(QFormLayout* form, DoubleField*& field, const QString& label,
                        const QString& toolTip, const QString& key, double minimum, double maximum,
                        int decimals, double scale, DoubleRef member);
    FieldRow* addInt(QFormLayout* form, IntField*& field, const QString& label,
                     const QString& toolTip, const QString& key, int minimum, int maximum,
                     IntRef member);

    struct DoubleBinding
    {
        DoubleField* field;
        FieldRow* row;
        QString key;  // JSON pointer below the link
        double scale; // shown = stored * scale
        DoubleRef member;
    };
    struct IntBinding
    {
        IntField* field;
        FieldRow* row;
        QString key;
        IntRef member;
    };
    std::vector<DoubleBinding> m_doubles;
    std::vector<IntBinding> m_ints;
    std::vector<const core::DciLink*> selectedLinks() const;

    QLabel* m_endpoints = nullptr;
    DoubleField* m_distance = nullptr;
    QLabel* m_latency = nullptr;
    CheckField* m_protection = nullptr;
    FieldRow* m_protectionRow = nullptr;
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
    DoubleField* m_headroom = nullptr;
    DoubleField* m_buffsize = nullptr;
    IntField* m_channels = nullptr;
    IntField* m_p2pChannels = nullptr;
    DoubleField* m_p2pChunk = nullptr;
    IntField* m_qps = nullptr;
};

} // namespace archipelago::views
