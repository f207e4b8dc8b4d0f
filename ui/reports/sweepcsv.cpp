#include "ui/reports/sweepcsv.h"

#include "models/scenarioio.h"
#include "ui/itemmodels/roles.h"
#include "ui/itemmodels/sweepresultmodel.h"

#include <QDir>
#include <QFileInfo>
#include <QLocale>

#include <string>

using namespace Qt::StringLiterals;

namespace choreo::ui {

QString csvField(const QString& field) {
    if (!field.contains(u',') && !field.contains(u'"') && !field.contains(u'\n') && !field.contains(u'\r'))
        return field;
    QString quoted = field;
    quoted.replace(u"\""_s, u"\"\""_s);
    return u'"' + quoted + u'"';
}

QString sweepCsv(const SweepResultModel& sweep) {
    QString out;
    QStringList header;
    header << u"label"_s;
    for (int c = 0; c < SweepResultModel::ColumnCount; ++c)
        header << SweepResultModel::columnKey(c);
    out += header.join(u',') + u"\r\n"_s;
    for (int row = 0; row < sweep.rowCount(); ++row) {
        QStringList fields;
        fields << csvField(sweep.outcomes()[static_cast<std::size_t>(row)].label);
        for (int c = 0; c < SweepResultModel::ColumnCount; ++c) {
            const QModelIndex index = sweep.index(row, c);
            if (c == SweepResultModel::StatusColumn || c == SweepResultModel::NoteColumn) {
                fields << csvField(index.data(Qt::DisplayRole).toString());
                continue;
            }
            const QVariant v = index.data(ValueRole);
            // The shortest text that reads back to the same double: exact, and the same in every locale.
            fields << (v.isValid() ? QString::number(v.toDouble(), 'g', QLocale::FloatingPointShortest)
                                   : QString());
        }
        out += fields.join(u',') + u"\r\n"_s;
    }
    return out;
}

bool writeSweepCsv(const SweepResultModel& sweep, const QString& path, QString& error) {
    std::string message;
    if (!models::writeTextFileAtomically(path.toStdString(), sweepCsv(sweep).toStdString(), message)) {
        error = QString::fromStdString(message);
        return false;
    }
    return true;
}

QString csvPathForReport(const QString& pdfPath) {
    const QFileInfo info(pdfPath);
    const QString suffix = info.suffix().toLower();
    const bool report = suffix == u"pdf"_s || suffix == u"html"_s || suffix == u"htm"_s;
    const QString base = report ? info.completeBaseName() : info.fileName();
    return info.dir().filePath(base + u".csv"_s);
}

} // namespace choreo::ui
