#include "calibrate/cpu/cpubench.h"

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <random>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#ifdef CHOREO_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace choreo::calibrate {

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::duration d) {
    return std::chrono::duration<double>(d).count();
}

// Runs worker(t) for t = 0 .. threads-1, worker(0) on the calling thread; returns when all are done.
template <typename Worker>
void runOnThreads(int threads, Worker& worker) {
    std::vector<std::jthread> pool;
    for (int t = 1; t < threads; ++t)
        pool.emplace_back(worker, t);
    worker(0);
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Sizes {
    std::vector<int> gemm;
    int repeats = 3;
    std::size_t triad_elements = 0; // per array
    std::size_t text_bytes = 0;     // in all, shared out between the threads
};

Sizes sizesFor(CpuBenchSize size) {
    switch (size) {
    case CpuBenchSize::Tiny:
        return {{64, 128}, 3, std::size_t{1} << 18, std::size_t{1} << 18};
    case CpuBenchSize::Quick:
        return {{256, 512, 1024, 2048}, 5, std::size_t{1} << 23, std::size_t{1} << 24};
    case CpuBenchSize::Full:
        return {{256, 512, 1024, 2048, 3072, 4096}, 7, std::size_t{1} << 25, std::size_t{1} << 27};
    }
    return {};
}

std::string cpuModel() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0)
            if (auto colon = line.find(':'); colon != std::string::npos)
                return line.substr(line.find_first_not_of(" \t", colon + 1));
    return "unknown CPU";
}

#ifdef CHOREO_HAVE_OPENBLAS
// C = A(n x n) B(n x n) through BLAS at precision T; the median rate of `repeats` after one warm-up, or
// nullopt when sampled entries disagree with a double-precision reference.
template <typename T>
std::optional<models::GemmPoint> blasGemm(int n, int repeats, std::string& failure) {
    std::mt19937_64 rng(0x5eed + static_cast<unsigned>(n));
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    const auto count = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    std::vector<T> a(count), b(count), c(count, T(0));
    for (auto& x : a)
        x = static_cast<T>(dist(rng));
    for (auto& x : b)
        x = static_cast<T>(dist(rng));
    auto run = [&] {
        if constexpr (std::is_same_v<T, float>)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n,
                        0.0f, c.data(), n);
        else
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a.data(), n, b.data(), n,
                        0.0, c.data(), n);
    };
    run();
    std::vector<double> times;
    for (int r = 0; r < repeats; ++r) {
        const auto t0 = Clock::now();
        run();
        times.push_back(seconds(Clock::now() - t0));
    }
    // Sampled entries against a double-precision dot product, within a rounding bound for length n.
    const double eps = std::numeric_limits<T>::epsilon();
    for (int s = 0; s < 32; ++s) {
        const auto i = static_cast<std::size_t>(rng() % static_cast<unsigned>(n));
        const auto j = static_cast<std::size_t>(rng() % static_cast<unsigned>(n));
        double ref = 0, magnitude = 0;
        for (std::size_t k = 0; k < static_cast<std::size_t>(n); ++k) {
            const double p = static_cast<double>(a[i * n + k]) * static_cast<double>(b[k * n + j]);
            ref += p;
            magnitude += std::fabs(p);
        }
        const double got = static_cast<double>(c[i * n + j]);
        if (!(std::fabs(got - ref) <= 4.0 * std::sqrt(static_cast<double>(n)) * eps * magnitude + 1e-30)) {
            failure = std::string(std::is_same_v<T, float> ? "sgemm" : "dgemm") + " n=" + std::to_string(n) +
                      ": C[" + std::to_string(i) + "," + std::to_string(j) + "] = " + std::to_string(got) +
                      ", reference " + std::to_string(ref);
            return std::nullopt;
        }
    }
    const double flops = 2.0 * n * static_cast<double>(n) * n;
    return models::GemmPoint{double(n), double(n), double(n), flops / median(times) / 1e12};
}
#endif

// STREAM-like triad a = b + s*c on every thread, each on its own first-touched slice; GB/s counted as
// STREAM does (two reads and one write of 8 bytes per element).
std::optional<double> triad(std::size_t elements, int threads, int repeats, std::string& failure) {
    std::vector<double> a(elements), b(elements), c(elements);
    const double scalar = 3.0;
    std::barrier sync(threads);
    std::vector<double> times;
    Clock::time_point start;
    auto worker = [&](int t) {
        const std::size_t lo = elements * static_cast<std::size_t>(t) / static_cast<std::size_t>(threads);
        const std::size_t hi = elements * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(threads);
        std::mt19937_64 rng(0x7a1ad + static_cast<unsigned>(t));
        std::uniform_real_distribution<double> dist(0.5, 1.5);
        for (std::size_t i = lo; i < hi; ++i) {
            a[i] = 0.0;
            b[i] = dist(rng);
            c[i] = dist(rng);
        }
        for (int r = 0; r <= repeats; ++r) { // repeat 0 is the warm-up
            sync.arrive_and_wait();
            if (t == 0)
                start = Clock::now();
            double* __restrict pa = a.data();
            const double* __restrict pb = b.data();
            const double* __restrict pc = c.data();
            for (std::size_t i = lo; i < hi; ++i)
                pa[i] = pb[i] + scalar * pc[i];
            sync.arrive_and_wait();
            if (t == 0 && r > 0)
                times.push_back(seconds(Clock::now() - start));
        }
    };
    runOnThreads(threads, worker);
    for (std::size_t i = 0; i < elements; i += elements / 61 + 1)
        if (a[i] != b[i] + scalar * c[i]) {
            failure = "triad: a[" + std::to_string(i) + "] is wrong";
            return std::nullopt;
        }
    return 24.0 * static_cast<double>(elements) / median(times) / 1e9;
}

// Text-like bytes and a vocabulary of words and syllables, as a tokenizer sees them: a stand-in for the
// data-preparation work (tokenizing) a CPU pool does for accelerators.
struct Corpus {
    std::vector<std::string> vocabulary; // token id -> bytes
    std::string text;
};

Corpus makeCorpus(std::size_t bytes) {
    static constexpr std::string_view kOnsets[] = {"b", "c", "d", "f", "g", "h",  "k",  "l",  "m",  "n", "p",
                                                   "r", "s", "t", "v", "w", "st", "tr", "ch", "th", "pl"};
    static constexpr std::string_view kVowels[] = {"a", "e", "i", "o", "u", "ai", "ou", "ea"};
    std::mt19937_64 rng(0x70c3);
    std::vector<std::string> syllables;
    for (auto on : kOnsets)
        for (auto v : kVowels)
            syllables.push_back(std::string(on) + std::string(v));
    std::vector<std::string> words;
    for (int i = 0; i < 20000; ++i) {
        std::string w;
        const int n = 1 + static_cast<int>(rng() % 3);
        for (int s = 0; s < n; ++s)
            w += syllables[rng() % syllables.size()];
        words.push_back(w);
    }
    Corpus c;
    for (int b = 0; b < 256; ++b)
        c.vocabulary.emplace_back(1, static_cast<char>(b));
    for (const auto& s : syllables)
        c.vocabulary.push_back(s);
    // The 8,000 most frequent words (the first ones under the Zipf draw below) with a leading space.
    for (int i = 0; i < 8000; ++i)
        c.vocabulary.push_back(" " + words[static_cast<std::size_t>(i)]);
    std::discrete_distribution<int> zipf = [&] {
        std::vector<double> w;
        for (std::size_t i = 0; i < words.size(); ++i)
            w.push_back(1.0 / static_cast<double>(i + 1));
        return std::discrete_distribution<int>(w.begin(), w.end());
    }();
    c.text.reserve(bytes + 64);
    while (c.text.size() < bytes) {
        c.text += ' ';
        c.text += words[static_cast<std::size_t>(zipf(rng))];
        const auto r = rng() % 20;
        if (r == 0)
            c.text += ".\n";
        else if (r == 1)
            c.text += ',';
    }
    c.text.resize(bytes);
    return c;
}

// Greedy longest-match tokenizer over a byte trie.
class Tokenizer {
public:
    explicit Tokenizer(const std::vector<std::string>& vocabulary) {
        nodes_.push_back(-1);
        for (std::size_t id = 0; id < vocabulary.size(); ++id) {
            std::uint32_t node = 0;
            for (char ch : vocabulary[id]) {
                const std::uint64_t key = edge(node, ch);
                auto it = children_.find(key);
                if (it == children_.end()) {
                    it = children_.emplace(key, static_cast<std::uint32_t>(nodes_.size())).first;
                    nodes_.push_back(-1);
                }
                node = it->second;
            }
            nodes_[node] = static_cast<std::int32_t>(id);
        }
    }

    void encode(std::string_view text, std::vector<std::uint32_t>& out) const {
        std::size_t pos = 0;
        while (pos < text.size()) {
            std::uint32_t node = 0;
            std::int32_t best = -1;
            std::size_t bestLength = 0;
            for (std::size_t i = pos; i < text.size(); ++i) {
                auto it = children_.find(edge(node, text[i]));
                if (it == children_.end())
                    break;
                node = it->second;
                if (nodes_[node] >= 0) {
                    best = nodes_[node];
                    bestLength = i - pos + 1;
                }
            }
            out.push_back(static_cast<std::uint32_t>(best)); // every byte is a token: best >= 0
            pos += bestLength;
        }
    }

private:
    static std::uint64_t edge(std::uint32_t node, char ch) {
        return (std::uint64_t{node} << 8) | static_cast<unsigned char>(ch);
    }
    std::vector<std::int32_t> nodes_; // token id ending at the node, or -1
    std::unordered_map<std::uint64_t, std::uint32_t> children_;
};

struct TokenRate {
    double tokens_per_s_per_core = 0;
    double bytes_per_token = 0;
};

std::optional<TokenRate> tokenize(std::size_t bytesPerThread, int threads, int repeats,
                                  std::string& failure) {
    const Corpus corpus = makeCorpus(bytesPerThread * static_cast<std::size_t>(threads));
    const Tokenizer tokenizer(corpus.vocabulary);
    std::vector<std::vector<std::uint32_t>> tokens(static_cast<std::size_t>(threads));
    std::barrier sync(threads);
    std::vector<double> times;
    Clock::time_point start;
    auto worker = [&](int t) {
        const std::string_view slice(corpus.text.data() + bytesPerThread * static_cast<std::size_t>(t),
                                     bytesPerThread);
        auto& out = tokens[static_cast<std::size_t>(t)];
        out.reserve(bytesPerThread);
        for (int r = 0; r <= repeats; ++r) {
            out.clear();
            sync.arrive_and_wait();
            if (t == 0)
                start = Clock::now();
            tokenizer.encode(slice, out);
            sync.arrive_and_wait();
            if (t == 0 && r > 0)
                times.push_back(seconds(Clock::now() - start));
        }
    };
    runOnThreads(threads, worker);
    std::size_t total = 0;
    for (int t = 0; t < threads; ++t) {
        const auto& out = tokens[static_cast<std::size_t>(t)];
        std::string decoded;
        for (auto id : out)
            decoded += corpus.vocabulary[id];
        if (decoded != corpus.text.substr(bytesPerThread * static_cast<std::size_t>(t), bytesPerThread)) {
            failure = "tokenizer: thread " + std::to_string(t) + " does not decode to its input";
            return std::nullopt;
        }
        total += out.size();
    }
    TokenRate rate;
    rate.tokens_per_s_per_core = static_cast<double>(total) / median(times) / threads;
    rate.bytes_per_token = static_cast<double>(bytesPerThread) * threads / static_cast<double>(total);
    return rate;
}

} // namespace

std::string blasName() {
#ifdef CHOREO_HAVE_OPENBLAS
    // openblas_get_config(): "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY ..."; keep name and version.
    std::string config = openblas_get_config();
    const auto first = config.find(' ');
    const auto second = first == std::string::npos ? first : config.find(' ', first + 1);
    return config.substr(0, second);
#else
    return {};
#endif
}

models::CpuMeasurements runCpuBenchmarks(const CpuBenchOptions& options) {
    const Sizes sizes = sizesFor(options.size);
    const int threads = options.threads > 0
                            ? options.threads
                            : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    auto progress = [&](double f, const std::string& stage) {
        if (options.progress)
            options.progress(f, stage);
    };
    models::CpuMeasurements m;
    m.model = cpuModel();
    m.cores = threads;
    m.blas = blasName();
    std::string failure;
#ifdef CHOREO_HAVE_OPENBLAS
    openblas_set_num_threads(threads);
    for (std::size_t i = 0; i < sizes.gemm.size(); ++i) {
        const int n = sizes.gemm[i];
        progress(0.6 * static_cast<double>(i) / static_cast<double>(sizes.gemm.size()),
                 "CPU GEMM n=" + std::to_string(n));
        if (auto p = blasGemm<float>(n, sizes.repeats, failure))
            m.sgemm.push_back(*p);
        else
            m.failures.push_back(failure);
        if (auto p = blasGemm<double>(n, sizes.repeats, failure))
            m.dgemm.push_back(*p);
        else
            m.failures.push_back(failure);
    }
#endif
    progress(0.6, "CPU memory bandwidth (triad)");
    if (auto bw = triad(sizes.triad_elements, threads, sizes.repeats, failure))
        m.triad_GBps = *bw;
    else
        m.failures.push_back(failure);
    progress(0.8, "CPU data preparation (tokenizer)");
    // The text is shared out, so that a many-core host does not spend the time budget generating it.
    const std::size_t textPerThread =
        std::max<std::size_t>(sizes.text_bytes / static_cast<std::size_t>(threads), std::size_t{1} << 14);
    if (auto rate = tokenize(textPerThread, threads, sizes.repeats, failure)) {
        m.tokens_per_s_per_core = rate->tokens_per_s_per_core;
        m.bytes_per_token = rate->bytes_per_token;
    } else {
        m.failures.push_back(failure);
    }
    progress(1.0, "CPU done");
    return m;
}

} // namespace choreo::calibrate
