#pragma once

namespace choreo::ui {

// Merge ids of scenario edits: consecutive undo commands with the same id merge into one step
// (typing a name, spinning a value). One enum, so that ids never collide.
enum EditId : int {
    NoMerge = -1,
    EditScenarioName = 1,
    EditTorusX,
    EditTorusY,
    EditTorusZ,
    // The serve stage (ServeEditor).
    EditServeTp,
    EditServePp,
    EditServeEp,
    EditServeReplicas,
    EditServeRate,
    EditServeDuration,
    EditServeCount,
    EditServeSeed,
    EditServeInputMean,
    EditServeOutputMean,
    EditServeTtftSlo,
    EditServeTpotSlo,
    EditServeTargetRate,
    EditServeHorizon,
    EditPoolCellBase = 1000, // + row * kPoolColumnStride + column
};

inline constexpr int kPoolColumnStride = 8;
// Edits of the field table's fields (models/fieldtable.h): the base plus the field's index.
inline constexpr int kFieldEditBase = 1 << 24;

// The merge id of an edit of one cell of the pools table.
constexpr int poolCellEditId(int row, int column) {
    return EditPoolCellBase + row * kPoolColumnStride + column;
}

// The merge id of an edit of the table field at `index`.
constexpr int fieldEditId(int index) {
    return kFieldEditBase + index;
}

} // namespace choreo::ui
