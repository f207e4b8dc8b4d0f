#include "ui/reports/tablecsv.h"

#include "models/scenarioio.h"
#include "ui/reports/sweepcsv.h"

#include <QAbstractItemModel>
#include <QFileDialog>
#include <QHeaderView>
#include <QMenu>
#include <QMessageBox>
#include <QStringList>
#include <QTableView>

using namespace Qt::StringLiterals;

namespace choreo::ui {

QString tableCsv(const QAbstractItemModel& model, bool rowHeaders) {
    QStringList header;
    if (rowHeaders)
        header << QString();
    for (int c = 0; c < model.columnCount(); ++c)
        header << csvField(model.headerData(c, Qt::Horizontal).toString());
    QString out = header.join(u',') + u"\r\n"_s;
    for (int row = 0; row < model.rowCount(); ++row) {
        QStringList fields;
        if (rowHeaders)
            fields << csvField(model.headerData(row, Qt::Vertical).toString());
        for (int c = 0; c < model.columnCount(); ++c)
            fields << csvField(model.index(row, c).data(Qt::DisplayRole).toString());
        out += fields.join(u',') + u"\r\n"_s;
    }
    return out;
}

bool writeTableCsv(const QAbstractItemModel& model, const QString& path, QString& error, bool rowHeaders) {
    std::string message;
    if (!models::writeTextFileAtomically(path.toStdString(), tableCsv(model, rowHeaders).toStdString(),
                                         message)) {
        error = QString::fromStdString(message);
        return false;
    }
    return true;
}

void addCsvExport(QTableView* view, const QString& name) {
    view->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(view, &QWidget::customContextMenuRequested, view, [view, name](const QPoint& position) {
        QMenu menu(view);
        menu.addAction(QObject::tr("Export table as CSV…"), view, [view, name] {
            QString path = QFileDialog::getSaveFileName(view, QObject::tr("Export table"), name + u".csv"_s,
                                                        QObject::tr("CSV (*.csv)"));
            if (path.isEmpty())
                return;
            if (!path.endsWith(u".csv"_s, Qt::CaseInsensitive))
                path += u".csv"_s;
            QString error;
            if (!writeTableCsv(*view->model(), path, error, !view->verticalHeader()->isHidden()))
                QMessageBox::warning(view, QObject::tr("Cannot export the table"), error);
        });
        menu.exec(view->viewport()->mapToGlobal(position));
    });
}

} // namespace choreo::ui
