// Helper of test_atomicsave: saves a very large document through Document::save, over and over,
// alternating two variants, until it is killed.
//   save_kill_helper TARGET LINKS
// Prints "ready" once the scenarios are built (saving starts right after) and "saved N" after
// each save returned.
#include "document/document.h"
#include "largescenario.h"

#include <QCoreApplication>
#include <QTextStream>

int main(int argc, char** argv)
{
    using namespace archipelago;
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() != 3)
        return 2;
    const QString target = args[1];
    const int links = args[2].toInt();
    const tests::LargeDocument variants[2] = {tests::largeDocument(links, 0),
                                              tests::largeDocument(links, 1)};
    app::Document document;
    QTextStream out(stdout);
    out << "ready" << Qt::endl;
    for (int n = 0;; ++n) {
        document.reset(variants[n % 2].scenario, target, variants[n % 2].pins);
        QString error;
        if (!document.save(target, &error)) {
            out << "error " << error << Qt::endl;
            return 1;
        }
        out << "saved " << n << Qt::endl;
    }
}
