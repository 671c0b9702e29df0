// Region page of the property editor: the region's name, the datacenters it holds, how it is
// linked to each other region (the shortest DCI path's distance and the capacity of the direct
// links), and Delete Region. A region groups buildings on the canvas and in reports and sets the
// default distance of a new link; the cost model reads the links, not the regions.
//
// Deleting a region moves its datacenters to the region its shortest direct link reaches (the
// first other region when none does), in the same undo step; the last region is kept.
#pragma once

#include "propertyeditor/propertyeditorpage.h"

class QPushButton;

namespace archipelago::views {

class RegionEditor : public PropertyEditorPage
{
    Q_OBJECT

public:
    explicit RegionEditor(EditSink* sink, QWidget* parent = nullptr);

    // For tests and tools.
    TextField* nameField() const { return m_name; }
    FieldRow* nameRow() const { return m_nameRow; }
    QPushButton* deleteButton() const { return m_delete; }
    QLabel* datacentersLabel() const { return m_datacenters; }
    QLabel* linksLabel() const { return m_links; }

    // The region the datacenters of `regionId` move to when it is deleted: the one its shortest
    // direct DCI link reaches, else the first other region; -1 when it is the only one.
    static core::Id successorRegion(const core::Topology& topology, core::Id regionId);

protected:
    void loadValues() override;

private:
    const core::Region* region() const;
    void rename(const QString& name);
    void remove();

    TextField* m_name = nullptr;
    FieldRow* m_nameRow = nullptr;
    QLabel* m_datacenters = nullptr;
    QLabel* m_links = nullptr;
    QPushButton* m_delete = nullptr;
    FieldRow* m_deleteRow = nullptr;
};

// Why `name` cannot name an object of this kind (empty, or the name of another one in `taken`),
// or an empty string when it can. `what` is the kind in words ("region", "datacenter").
QString nameRefusal(const QString& name, const QStringList& taken, const QString& what);

} // namespace archipelago::views
