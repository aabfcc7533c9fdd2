// Analyzers lent to the threads that analyze a batch of queries and taken
// back after: making one (its stemmer, its scratch tables) costs more than
// answering a small batch, so they are kept between batches.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "analysis/analyzer.hpp"
#include "invidx/analysis_settings.hpp"

namespace invidx {

class AnalyzerPool {
public:
    // `settings` (the index's) must outlive the pool.
    explicit AnalyzerPool(const AnalysisSettings& settings) : settings_(settings) {}

    // A spare analyzer, or a new one when none is spare.
    std::unique_ptr<Analyzer> take() {
        {
            std::lock_guard lock(mutex_);
            if (!spare_.empty()) {
                auto analyzer = std::move(spare_.back());
                spare_.pop_back();
                return analyzer;
            }
        }
        return std::make_unique<Analyzer>(settings_);
    }

    void give_back(std::unique_ptr<Analyzer> analyzer) {
        std::lock_guard lock(mutex_);
        spare_.push_back(std::move(analyzer));
    }

private:
    const AnalysisSettings& settings_;
    std::mutex mutex_;
    std::vector<std::unique_ptr<Analyzer>> spare_;
};

}  // namespace invidx
