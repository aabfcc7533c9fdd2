#include "graph/buffer_pool.hpp"

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using invidx::BufferPool;

struct Message {
    int number = 0;
    std::string bytes;
};

}  // namespace

TEST_CASE("buffer pool: an empty pool hands out empty buffers") {
    BufferPool<std::string> pool(4);
    CHECK(pool.take().capacity() <= std::string().capacity());
    CHECK(pool.free_count() == 0);
}

TEST_CASE("buffer pool: a buffer given back is handed out again with its size and bytes") {
    BufferPool<std::vector<char>> pool(4);
    std::vector<char> buffer(1 << 20, 'x');
    const char* const data = buffer.data();
    pool.give_back(std::move(buffer));
    CHECK(pool.free_count() == 1);
    std::vector<char> again = pool.take();
    CHECK(again.data() == data);  // the same memory, not a copy
    CHECK(again.size() == size_t{1} << 20);
    CHECK(again.back() == 'x');
    CHECK(pool.free_count() == 0);
}

TEST_CASE("buffer pool: the largest buffer kept is handed out first") {
    BufferPool<std::string> pool(4);
    pool.give_back(std::string(300, 'b'));
    pool.give_back(std::string(5000, 'c'));
    pool.give_back(std::string(100, 'a'));
    CHECK(pool.take().size() == 5000);
    CHECK(pool.take().size() == 300);
    CHECK(pool.take().size() == 100);
    CHECK(pool.free_count() == 0);
}

TEST_CASE("buffer pool: keeps at most max_free buffers and no empty ones") {
    BufferPool<std::string> pool(2);
    pool.give_back(std::string());
    CHECK(pool.free_count() == 0);
    for (int i = 0; i < 5; ++i) pool.give_back(std::string(100, 'a'));
    CHECK(pool.free_count() == 2);
}

TEST_CASE("buffer pool: a shared message's buffer comes back when its last holder lets go") {
    auto pool = std::make_shared<BufferPool<std::string>>(4);
    Message message{7, std::string(4096, 'q')};
    const char* const data = message.bytes.data();
    auto shared = BufferPool<std::string>::share(pool, std::move(message), &Message::bytes);
    CHECK(shared->number == 7);
    CHECK(shared->bytes.data() == data);
    auto second_holder = shared;
    shared.reset();
    CHECK(pool->free_count() == 0);  // still held
    second_holder.reset();
    REQUIRE(pool->free_count() == 1);
    CHECK(pool->take().data() == data);
}

TEST_CASE("buffer pool: messages keep their pool alive") {
    std::weak_ptr<BufferPool<std::string>> watch;
    std::shared_ptr<const Message> shared;
    {
        auto pool = std::make_shared<BufferPool<std::string>>(1);
        watch = pool;
        shared = BufferPool<std::string>::share(pool, Message{1, std::string(64, 'z')}, &Message::bytes);
    }
    CHECK_FALSE(watch.expired());
    shared.reset();
    CHECK(watch.expired());
}

TEST_CASE("buffer pool: threads taking and giving back never share a buffer") {
    auto pool = std::make_shared<BufferPool<std::string>>(3);
    std::vector<std::thread> threads;
    std::vector<int> failures(4, 0);
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 2000; ++i) {
                std::string buffer = pool->take();
                buffer.assign(256, static_cast<char>('a' + t));
                std::this_thread::yield();
                if (buffer != std::string(256, static_cast<char>('a' + t))) ++failures[t];
                pool->give_back(std::move(buffer));
            }
        });
    }
    for (auto& thread : threads) thread.join();
    for (const int failed : failures) CHECK(failed == 0);
    CHECK(pool->free_count() <= 3);
}
