#pragma once
// Internal to sim: includes SimGrid.

#include "sim/platform.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace choreo::sim {

// A dependency graph of computations, transfers and delays, run on a Platform without actors: a task
// starts (as a SimGrid activity) when all its predecessors have finished.
class TaskGraph {
public:
    enum class Kind { Compute, Transfer, Delay, Join };
    using Id = std::int32_t;

    struct Task {
        Kind kind = Kind::Join;
        sg4::Host* host = nullptr; // compute host, or transfer source
        sg4::Host* peer = nullptr; // transfer destination
        double amount = 0;         // flops, bytes or seconds
        std::int32_t pending = 0;  // unfinished predecessors
        std::vector<Id> successors;
        double start_s = -1;
        double end_s = -1;
        sg4::ActivityPtr activity;
    };

    explicit TaskGraph(const Platform& platform)
        : platform_(&platform) {}
    // A graph over hosts of its own (computeOn, transferHosts): compute, transfer and delay need a Platform.
    TaskGraph() = default;

    // Thrown by a counting graph when more than its limit of tasks is added.
    struct TooManyTasks {
        std::int64_t limit;
    };
    // A graph that only counts the tasks a builder adds (no memory per task), and throws TooManyTasks past
    // `limit`: what a build would cost, known before it is paid. Such a graph cannot run.
    static TaskGraph counting(const Platform& platform, std::int64_t limit) {
        TaskGraph g(platform);
        g.countLimit_ = limit;
        return g;
    }
    [[nodiscard]] std::int64_t counted() const { return counted_; }
    // Past `limit` tasks (negative: none), adding one throws TooManyTasks: a build that stops before it
    // holds more than that.
    void limitTasks(std::int64_t limit) { taskLimit_ = limit; }

    Id compute(std::int64_t device, double seconds); // `seconds` at the device's full speed
    Id computeOn(sg4::Host* host, double seconds);   // `seconds` at the host's speed
    Id transfer(std::int64_t from, std::int64_t to, double bytes);
    Id transferHosts(sg4::Host* from, sg4::Host* to, double bytes);
    Id delay(double seconds);
    Id join();
    void depend(Id before, Id after);
    void depend(const std::vector<Id>& before, Id after);

    // Runs the graph to completion on `engine`; returns the simulated duration. `progress` is called
    // with the fraction of finished tasks, at most about a hundred times.
    double run(sg4::Engine& engine, const std::function<void(double)>& progress = {});

    [[nodiscard]] const Task& task(Id id) const { return tasks_[static_cast<std::size_t>(id)]; }
    [[nodiscard]] std::size_t size() const { return tasks_.size(); }
    // After run(): the latest end among the first `count` tasks added (a graph built in parts).
    [[nodiscard]] double endOfFirst(std::size_t count) const;
    // Tasks backed by a SimGrid activity (joins and empty transfers excluded).
    [[nodiscard]] std::int64_t activities() const { return activities_; }

private:
    Id add(Task task);
    void launch(Id id);
    void finish(Id id);

    const Platform* platform_ = nullptr;
    std::vector<Task> tasks_;
    std::vector<Id> ready_;
    std::vector<sg4::ActivityPtr> graveyard_;
    std::int64_t finished_ = 0;
    std::int64_t activities_ = 0;
    std::int64_t nextReport_ = 0;
    std::function<void(double)> progress_;
    std::int64_t countLimit_ = -1; // >= 0: a counting graph
    std::int64_t taskLimit_ = -1;  // >= 0: the most tasks this graph may hold
    std::int64_t counted_ = 0;
};

} // namespace choreo::sim
