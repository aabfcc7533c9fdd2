// Everything an embedding program needs.
#pragma once

#include "invidx/config.hpp"
#include "invidx/device.hpp"
#include "invidx/document_source.hpp"
#include "invidx/error.hpp"
#include "invidx/indexer_registry.hpp"
#include "invidx/metrics.hpp"
#include "invidx/node.hpp"
#include "invidx/pipeline.hpp"
#include "invidx/registry.hpp"
#include "invidx/run_state.hpp"
#include "invidx/messages.hpp"
