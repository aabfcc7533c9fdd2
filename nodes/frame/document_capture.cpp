#include "nodes/frame/document_capture.hpp"

#include "graph/build_state.hpp"
#include "store/index_writer.hpp"

namespace invidx {

DocumentStoreWriter* document_store_of(RunState& state) {
    auto* build = dynamic_cast<BuildState*>(&state);
    if (!build || !build->writer) return nullptr;
    return build->writer->document_store();
}

void capture_documents(DocumentStoreWriter* store, const DocBatch& batch) {
    if (!store) return;
    for (const DocRecord& doc : batch.docs) store->append(batch.text_of(doc), doc.metadata);
}

}  // namespace invidx
