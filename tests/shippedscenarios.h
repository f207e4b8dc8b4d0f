#pragma once
// The scenarios Choreo ships (assets/scenarios and its systems/ folder), as paths relative to the
// scenarios folder: what the golden figures and the hostile mutations run over.
#include <QDir>
#include <QStringList>

namespace choreo::testing {

inline QStringList shippedScenarios(const QDir& scenarios) {
    QStringList names = scenarios.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    const QDir systems(scenarios.filePath(QStringLiteral("systems")));
    for (const QString& name : systems.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name))
        names << QStringLiteral("systems/") + name;
    return names;
}

} // namespace choreo::testing
