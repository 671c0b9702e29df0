// Moves datacenters on the canvas: a look-only change that never re-runs the model. The
// successive moves of one drag merge into one undo step (id() / mergeWith()).
#pragma once

#include "document/document.h"

#include <QUndoCommand>

#include <vector>

namespace archipelago::app {

class MoveDatacenters : public QUndoCommand
{
public:
    struct Move
    {
        core::Id id = -1;
        double x = 0.0;
        double y = 0.0;
    };

    // Moves with the same `dragId` (>= 0) merge: the steps of one canvas drag. With dragId -1,
    // successive moves of the same datacenters merge.
    MoveDatacenters(Document* document, std::vector<Move> moves, int dragId = -1,
                    QUndoCommand* parent = nullptr);

    void undo() override;
    void redo() override;
    int id() const override;
    bool mergeWith(const QUndoCommand* other) override;

private:
    using Positions = std::vector<std::pair<core::Id, std::pair<double, double>>>;

    Document* m_document;
    int m_dragId = -1;
    Positions m_from;
    Positions m_to;
};

} // namespace archipelago::app
