// Datacenter page of the property editor: name, region, accelerator (from the effective
// catalog), scale-out fabric, checkpoint storage and pods, for the whole selection at once.
// Selecting datacenters edits them and, for a single one, the pod chosen in the page; selecting
// pods edits those pods (in whichever datacenters) and shows their datacenters. Proposes every
// selected datacenter edited at once; the placement may be re-made when the GPU counts change.
#pragma once

#include "propertyeditor/propertyeditorpage.h"

#include <functional>

namespace archipelago::views {

class DatacenterEditor : public PropertyEditorPage
{
    Q_OBJECT

public:
    explicit DatacenterEditor(EditSink* sink, QWidget* parent = nullptr);

    // For tests and tools.
    TextField* nameField() const { return m_name; }
    FieldRow* nameRow() const { return m_nameRow; }
    ChoiceField* regionField() const { return m_region; }
    ChoiceField* acceleratorField() const { return m_accelerator; }
    IntField* podCountField() const { return m_podCount; }
    DoubleField* storageWriteField() const { return m_storageWrite; }
    DoubleField* electricityField() const { return m_electricity; }
    DoubleField* pueField() const { return m_pue; }

protected:
    void loadValues() override;

private:
    void buildGeneral();
    void buildFabric();
    void buildStorage();
    void buildSite();
    void buildPods();
    // The name typed, refused when empty or taken by another datacenter (the field is off while
    // several are selected).
    void rename(const QString& typed);
    void editDatacenters(FieldRow* row, const std::function<void(core::Datacenter&)>& apply);
    void editPods(FieldRow* row, const std::function<void(core::Pod&)>& apply);
    void loadCatalogChoices();
    void loadPods();
    QStringList podPointers(const QString& suffix) const;
    std::vector<const core::Datacenter*> selectedDatacenters() const;
    std::vector<const core::Pod*> selectedPods() const;

    QList<core::Id> m_dcIds;
    QList<core::Id> m_podIds;

    TextField* m_name = nullptr;
    FieldRow* m_nameRow = nullptr;
    ChoiceField* m_region = nullptr;
    FieldRow* m_regionRow = nullptr;
    QLabel* m_gpus = nullptr;
    ChoiceField* m_accelerator = nullptr;
    FieldRow* m_acceleratorRow = nullptr;
    QLabel* m_acceleratorSpec = nullptr;

    ChoiceField* m_fabricKind = nullptr;
    FieldRow* m_fabricKindRow = nullptr;
    IntField* m_tiers = nullptr;
    FieldRow* m_tiersRow = nullptr;
    DoubleField* m_leafOversubscription = nullptr;
    FieldRow* m_leafRow = nullptr;
    DoubleField* m_spineOversubscription = nullptr;
    FieldRow* m_spineRow = nullptr;
    ChoiceField* m_switch = nullptr;
    FieldRow* m_switchRow = nullptr;
    ChoiceField* m_nic = nullptr;
    FieldRow* m_nicRow = nullptr;
    IntField* m_nicsPerGpu = nullptr;
    FieldRow* m_nicsPerGpuRow = nullptr;

    DoubleField* m_storageWrite = nullptr;
    FieldRow* m_storageWriteRow = nullptr;
    DoubleField* m_storageRead = nullptr;
    DoubleField* m_electricity = nullptr;
    FieldRow* m_electricityRow = nullptr;
    DoubleField* m_pue = nullptr;
    FieldRow* m_pueRow = nullptr;
    DoubleField* m_facility = nullptr;
    FieldRow* m_facilityRow = nullptr;
    FieldRow* m_storageReadRow = nullptr;

    QFormLayout* m_podForm = nullptr;
    QLabel* m_podHint = nullptr;
    ChoiceField* m_podChooser = nullptr;
    TextField* m_podName = nullptr;
    FieldRow* m_podNameRow = nullptr;
    IntField* m_podCount = nullptr;
    FieldRow* m_podCountRow = nullptr;
    IntField* m_domainsPerPod = nullptr;
    FieldRow* m_domainsRow = nullptr;
    IntField* m_gpusPerDomain = nullptr;
    FieldRow* m_gpusPerDomainRow = nullptr;
    QLabel* m_podGpus = nullptr;
};

} // namespace archipelago::views
