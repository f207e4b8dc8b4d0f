#pragma once

namespace choreo::ui {

// Merge ids of scenario edits: consecutive undo commands with the same id merge into one step
// (typing a name, spinning a value). One enum, so that ids never collide.
enum EditId : int {
    NoMerge = -1,
    EditScenarioName = 1,
    EditNicGbps,
    EditOversubscription,
    EditModelName,
    EditLayers,
    EditHidden,
    EditHeads,
    EditKvHeads,
    EditHeadDim,
    EditFfnHidden,
    EditVocab,
    EditSeqLen,
    EditGlobalBatch,
    EditMicroBatch,
    EditTokensToTrain,
    EditTp,
    EditPp,
    EditDp,
    EditVp,
    EditCp,
    EditRentOverride,
    EditBuyOverride,
    EditAmortisation,
    EditElectricity,
    EditPue,
    EditEp,
    EditEtp,
    EditMoeExperts,
    EditMoeTopK,
    EditMoeExpertFfnHidden,
    EditMoeSharedExperts,
    EditMoeDenseLayers,
    EditNodesPerLeaf,
    EditSwitchRadix,
    EditSwitchLatency,
    EditDragonflyGroups,
    EditRoutersPerGroup,
    EditGlobalLinksPerRouter,
    EditTorusX,
    EditTorusY,
    EditTorusZ,
    EditTopologyLinkGbps,
    EditActivationOffload,
    EditPoolCellBase = 1000, // + row * kPoolColumnStride + column
};

inline constexpr int kPoolColumnStride = 8;

// The merge id of an edit of one cell of the pools table.
constexpr int poolCellEditId(int row, int column) {
    return EditPoolCellBase + row * kPoolColumnStride + column;
}

} // namespace choreo::ui
