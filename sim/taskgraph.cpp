#include "sim/taskgraph.h"

#include <algorithm>
#include <cassert>
#include <stdexcept>

namespace choreo::sim {

namespace {
// The graph whose activities are running; SimGrid's completion signal is process-wide.
TaskGraph* g_running = nullptr;
bool g_callbackInstalled = false;

struct TaskRef {
    TaskGraph* graph;
    TaskGraph::Id id;
};
} // namespace

TaskGraph::Id TaskGraph::add(Task task) {
    if (countLimit_ >= 0) {
        if (++counted_ > countLimit_)
            throw TooManyTasks{countLimit_};
        return static_cast<Id>(counted_ % (1 << 30)); // never looked up: a counting graph does not run
    }
    if (taskLimit_ >= 0 && static_cast<std::int64_t>(tasks_.size()) >= taskLimit_)
        throw TooManyTasks{taskLimit_};
    tasks_.push_back(std::move(task));
    return static_cast<Id>(tasks_.size() - 1);
}

TaskGraph::Id TaskGraph::compute(std::int64_t device, double seconds) {
    assert(platform_ && "a graph without a platform has no devices");
    Task t;
    t.kind = Kind::Compute;
    t.host = platform_->device(device);
    t.amount = seconds * platform_->spec().device_speed_flops;
    return add(std::move(t));
}

TaskGraph::Id TaskGraph::computeOn(sg4::Host* host, double seconds) {
    Task t;
    t.kind = Kind::Compute;
    t.host = host;
    t.amount = seconds * host->get_speed();
    return add(std::move(t));
}

TaskGraph::Id TaskGraph::transfer(std::int64_t from, std::int64_t to, double bytes) {
    assert(platform_ && "a graph without a platform has no devices");
    auto [a, b] = platform_->endpoints(from, to);
    return transferHosts(a, b, bytes);
}

TaskGraph::Id TaskGraph::transferHosts(sg4::Host* from, sg4::Host* to, double bytes) {
    Task t;
    t.kind = Kind::Transfer;
    t.host = from;
    t.peer = to;
    t.amount = bytes;
    return add(std::move(t));
}

TaskGraph::Id TaskGraph::delay(double seconds) {
    assert(platform_ && "a graph without a platform has no devices");
    Task t;
    t.kind = Kind::Delay;
    t.host = platform_->timer();
    t.amount = seconds * Platform::kTimerSpeed;
    return add(std::move(t));
}

TaskGraph::Id TaskGraph::join() {
    return add(Task{});
}

void TaskGraph::depend(Id before, Id after) {
    if (countLimit_ >= 0)
        return;
    tasks_[static_cast<std::size_t>(before)].successors.push_back(after);
    tasks_[static_cast<std::size_t>(after)].pending++;
}

void TaskGraph::depend(const std::vector<Id>& before, Id after) {
    for (Id b : before)
        depend(b, after);
}

void TaskGraph::launch(Id id) {
    Task& t = tasks_[static_cast<std::size_t>(id)];
    t.start_s = sg4::Engine::get_clock();
    const bool empty =
        t.kind == Kind::Join || t.amount <= 0.0 || (t.kind == Kind::Transfer && t.host == t.peer);
    if (empty) {
        ready_.push_back(id); // finishes at once, without a SimGrid activity
        return;
    }
    ++activities_;
    auto* ref = new TaskRef{this, id};
    switch (t.kind) {
    case Kind::Compute:
    case Kind::Delay: {
        sg4::ExecPtr exec = sg4::Exec::init();
        exec->set_flops_amount(t.amount);
        exec->set_host(t.host);
        exec->set_data(ref);
        t.activity = exec;
        exec->start();
        break;
    }
    case Kind::Transfer: {
        sg4::CommPtr comm = sg4::Comm::sendto_init(t.host, t.peer);
        comm->set_payload_size(static_cast<std::uint64_t>(t.amount));
        comm->set_data(ref);
        t.activity = comm;
        comm->start();
        break;
    }
    case Kind::Join:
        break;
    }
}

void TaskGraph::finish(Id first) {
    ready_.push_back(first);
    // Iterative, so that long chains of instantly finishing tasks cannot overflow the stack.
    while (!ready_.empty()) {
        const Id id = ready_.back();
        ready_.pop_back();
        Task& t = tasks_[static_cast<std::size_t>(id)];
        t.end_s = sg4::Engine::get_clock();
        if (t.activity) {
            graveyard_.push_back(std::move(t.activity)); // never drop it inside its own callback
            t.activity = nullptr;
        }
        ++finished_;
        for (Id s : t.successors)
            if (--tasks_[static_cast<std::size_t>(s)].pending == 0)
                launch(s);
    }
    if (progress_ && finished_ >= nextReport_) {
        progress_(static_cast<double>(finished_) / static_cast<double>(tasks_.size()));
        nextReport_ = finished_ + static_cast<std::int64_t>(tasks_.size() / 100) + 1;
    }
}

double TaskGraph::endOfFirst(std::size_t count) const {
    double end = 0.0;
    for (std::size_t i = 0; i < count && i < tasks_.size(); ++i)
        end = std::max(end, tasks_[i].end_s);
    return end;
}

double TaskGraph::run(sg4::Engine& engine, const std::function<void(double)>& progress) {
    if (countLimit_ >= 0)
        throw std::logic_error("a counting task graph cannot run");
    if (!g_callbackInstalled) {
        sg4::Activity::on_completion_cb([](const sg4::Activity& activity) {
            auto* ref = activity.get_data<TaskRef>();
            if (!ref || !g_running || ref->graph != g_running)
                return;
            const TaskGraph::Id id = ref->id;
            delete ref;
            const_cast<sg4::Activity&>(activity).set_data(nullptr);
            g_running->graveyard_.clear(); // the previous completions' activities are done with
            g_running->finish(id);
        });
        g_callbackInstalled = true;
    }
    progress_ = progress;
    g_running = this;
    const double start = sg4::Engine::get_clock();
    std::vector<Id> roots;
    for (std::size_t i = 0; i < tasks_.size(); ++i)
        if (tasks_[i].pending == 0)
            roots.push_back(static_cast<Id>(i));
    for (Id r : roots) {
        launch(r);
        while (!ready_.empty()) { // roots that finish at once release their successors now
            const Id id = ready_.back();
            ready_.pop_back();
            finish(id);
        }
    }
    engine.run();
    g_running = nullptr;
    graveyard_.clear();
    if (finished_ != static_cast<std::int64_t>(tasks_.size()))
        throw std::runtime_error(
            "simulation stalled: " + std::to_string(tasks_.size() - static_cast<std::size_t>(finished_)) +
            " of " + std::to_string(tasks_.size()) + " tasks never ran (dependency cycle?)");
    if (progress_)
        progress_(1.0);
    return sg4::Engine::get_clock() - start;
}

} // namespace choreo::sim
