#pragma once
// Splits a long Qt Test suite into shards that CTest runs side by side (tests/sim/CMakeLists.txt:
// choreo_add_sharded_test). CHOREO_TEST_SHARD="i/n" runs the suite's test functions whose position
// modulo n is i; without it, or when function names are given on the command line, QTest runs as usual.
#include <QByteArray>
#include <QCoreApplication>
#include <QMetaMethod>
#include <QTest>

#include <vector>

namespace choreo::testing {

inline bool isTestFunction(const QMetaMethod& m) {
    if (m.methodType() != QMetaMethod::Slot || m.access() != QMetaMethod::Private || m.parameterCount() != 0)
        return false;
    const QByteArray name = m.name();
    return name != "initTestCase" && name != "cleanupTestCase" && name != "init" && name != "cleanup" &&
           !name.endsWith("_data");
}

// The test functions of shard `index` of `count`, in declaration order.
inline std::vector<QByteArray> shardFunctions(const QMetaObject& meta, int index, int count) {
    std::vector<QByteArray> picked;
    int position = 0;
    for (int i = meta.methodOffset(); i < meta.methodCount(); ++i) {
        const QMetaMethod m = meta.method(i);
        if (!isTestFunction(m))
            continue;
        if (position % count == index)
            picked.push_back(m.name());
        ++position;
    }
    return picked;
}

// Parses "i/n" with 0 <= i < n; false when malformed.
inline bool parseShard(const QByteArray& text, int& index, int& count) {
    const QList<QByteArray> parts = text.split('/');
    bool okIndex = false;
    bool okCount = false;
    if (parts.size() == 2) {
        index = parts[0].toInt(&okIndex);
        count = parts[1].toInt(&okCount);
    }
    return okIndex && okCount && count > 0 && index >= 0 && index < count;
}

template <typename TestClass>
int runShard(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    TestClass suite;
    const QByteArray shard = qgetenv("CHOREO_TEST_SHARD");
    if (shard.isEmpty() || argc > 1)
        return QTest::qExec(&suite, argc, argv);
    int index = 0;
    int count = 1;
    if (!parseShard(shard, index, count)) {
        qCritical("CHOREO_TEST_SHARD: expected \"i/n\" with 0 <= i < n, got \"%s\"", shard.constData());
        return 2;
    }
    const std::vector<QByteArray> functions = shardFunctions(TestClass::staticMetaObject, index, count);
    if (functions.empty())
        return 0;
    std::vector<char*> args{argv[0]};
    for (const QByteArray& f : functions)
        args.push_back(const_cast<char*>(f.constData()));
    return QTest::qExec(&suite, static_cast<int>(args.size()), args.data());
}

} // namespace choreo::testing

#define CHOREO_SHARDED_TEST_MAIN(TestClass)                                                                  \
    int main(int argc, char** argv) {                                                                        \
        return choreo::testing::runShard<TestClass>(argc, argv);                                             \
    }
