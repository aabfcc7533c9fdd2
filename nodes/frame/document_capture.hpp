// The frame node's docid step hands each numbered batch here: with the
// document store on ("store": {"documents": true}), every document's text
// as the parser will see it, and its metadata, go to the store in docid
// order (batches leave the docid step in that order).
#pragma once

#include "invidx/messages.hpp"
#include "invidx/run_state.hpp"

namespace invidx {

class DocumentStoreWriter;

// The build's document store, or nullptr when it is off (or the graph is
// not an invidx::Pipeline build).
DocumentStoreWriter* document_store_of(RunState& state);

// Appends the batch's documents; `store` may be nullptr (nothing to do).
void capture_documents(DocumentStoreWriter* store, const DocBatch& batch);

}  // namespace invidx
