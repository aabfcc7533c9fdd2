#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

#include <oneapi/tbb/flow_graph.h>

#include "graph/async_worker.hpp"

// The parse node's sharing pattern with GPU parsers: one queue feeds a
// rejecting function_node (the CPU parsers) and, per GPU slot, a limiter of
// 1 in front of an async_node whose work finishes on the slot's own thread,
// which then decrements the limiter. Every item must reach exactly one
// taker. (With a buffer_node in place of the queue, oneTBB 2021 hands the
// item a limiter has reserved to a plain pull as well: items arrive twice
// and others are lost, or the process crashes: every run of this test did.)
TEST_CASE("a queue shared by rejecting parsers and limiter-gated async slots hands each item to exactly one") {
    namespace flow = oneapi::tbb::flow;
    using Item = std::shared_ptr<const int>;
    using Async = flow::async_node<Item, int>;
    constexpr int kItems = 200000;
    constexpr int kSlots = 3;

    std::vector<std::atomic<int>> taken(kItems);
    flow::graph graph;
    flow::queue_node<Item> queue(graph);
    flow::function_node<Item, int, flow::rejecting> cpu(graph, 2, [&](const Item& item) {
        ++taken[*item];
        return *item;
    });
    flow::make_edge(queue, cpu);

    std::vector<std::unique_ptr<invidx::AsyncWorker>> workers;
    std::vector<std::unique_ptr<flow::limiter_node<Item>>> limiters;
    std::vector<std::unique_ptr<Async>> slots;
    for (int s = 0; s < kSlots; ++s) {
        workers.push_back(std::make_unique<invidx::AsyncWorker>("test-worker"));
        limiters.push_back(std::make_unique<flow::limiter_node<Item>>(graph, 1));
        invidx::AsyncWorker* const worker = workers.back().get();
        flow::limiter_node<Item>* const limiter = limiters.back().get();
        slots.push_back(std::make_unique<Async>(graph, flow::unlimited, [&taken, worker, limiter](const Item& item, Async::gateway_type& gateway) {
            gateway.reserve_wait();
            worker->submit([&taken, item, limiter, &gateway] {
                ++taken[*item];
                limiter->decrementer().try_put(flow::continue_msg());
                gateway.release_wait();
            });
        }));
        flow::make_edge(queue, *limiters.back());
        flow::make_edge(*limiters.back(), *slots.back());
    }

    // Small rounds keep the queue nearly empty, where a reserved front item
    // and a plain pull meet.
    constexpr int kRound = 100;
    for (int first = 0; first < kItems; first += kRound) {
        for (int i = first; i < std::min(kItems, first + kRound); ++i) queue.try_put(std::make_shared<const int>(i));
        graph.wait_for_all();
    }
    for (auto& worker : workers) worker.reset();

    int missing = 0, repeated = 0;
    for (const auto& count : taken) {
        missing += count.load() == 0;
        repeated += count.load() > 1;
    }
    CHECK(missing == 0);
    CHECK(repeated == 0);
}
