// Editing from a first-time user's point of view, in the main window offscreen:
// Ctrl+Z / Ctrl+Shift+Z / Ctrl+Y undo and redo the document while a property field has focus
// (half-typed text is discarded first); every refusal says in words what is wrong and what
// would be accepted, next to the field, and clears once fixed; the model pick list fills the
// workload in one undo step; a new datacenter's fabric holds its GPUs; the scenario's name and
// description are edited and undone; every undo text names the field and the value.
#include "commands/datacentercommands.h"
#include "document/document.h"
#include "document/evaluator.h"
#include "editing/editcontroller.h"
#include "propertyeditor/propertyeditor.h"
#include "propertyeditor/propertyeditorlink.h"
#include "propertyeditor/propertyeditorparallelism.h"
#include "propertyeditor/propertyeditorscenario.h"
#include "propertyeditor/propertyeditorworkload.h"
#include "window/mainwindow.h"
#include "window/prompts.h"

#include "evaluation/costmodel.h"
#include "io/scenarioio.h"
#include "model/modelshapes.h"
#include "model/scenariotemplates.h"
#include "network/fabric.h"

#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>
#include <QUndoStack>

#include <memory>

using namespace archipelago;
using Kind = views::PropertyEditor::Kind;

namespace {

views::FieldRow* rowOf(QWidget* editor)
{
    return qobject_cast<views::FieldRow*>(editor->parentWidget());
}

// The spin box of a form row by its label ("Layers", "Global batch (sequences)").
template <typename Field> Field* fieldLabelled(QWidget* page, const QString& label)
{
    for (QLabel* title : page->findChildren<QLabel*>())
        if (title->text() == label && title->buddy())
            return qobject_cast<Field*>(title->buddy());
    return nullptr;
}

// Types `text` into a focused one-line editor (a spin box's line edit), replacing what it
// shows, without committing.
void typeInto(QWidget* editor, const QString& text)
{
    editor->setFocus();
    QWidget* target = QApplication::focusWidget() ? QApplication::focusWidget() : editor;
    QTest::keyClick(target, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(target, text);
}

void commit(QWidget* editor)
{
    QWidget* target = QApplication::focusWidget() ? QApplication::focusWidget() : editor;
    QTest::keyClick(target, Qt::Key_Return);
}

bool inUserWords(const QString& message)
{
    // No JSON pointer, no snake_case key, no "a * b" formula.
    return !message.isEmpty() && !message.contains(QLatin1String("/workload")) &&
           !message.contains(QLatin1String("/parallelism")) &&
           !message.contains(QLatin1String("/topology")) && !message.contains(QLatin1Char('_')) &&
           !message.contains(QLatin1String(" * "));
}

} // namespace

class TestEditing : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void undoRedoFromFocusedSpinBox();
    void undoFromFocusedLineEditAndHalfTypedText();
    void refusalsInUserWords_data();
    void refusalsInUserWords();
    void globalBatchRefusalSaysWhatIsAccepted();
    void modelPickListIsOneUndoStep();
    void newDatacenterFabricHoldsItsGpus();
    void scenarioNameAndDescriptionUndo();
    void undoTextsNameTheField();

private:
    views::PropertyEditor* editor() const { return m_window->propertyEditor(); }
    app::Document* document() const { return m_window->document(); }
    QUndoStack* stack() const { return document()->undoStack(); }

    std::unique_ptr<app::MainWindow> m_window;
};

void TestEditing::init()
{
    m_window = std::make_unique<app::MainWindow>(std::make_unique<app::SilentPrompts>());
    m_window->evaluator()->setDelay(0);
    m_window->resize(1600, 1000);
    m_window->show();
    QVERIFY(m_window->newEmptyDocument());
    QApplication::setActiveWindow(m_window.get());
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
}

void TestEditing::cleanup()
{
    m_window.reset();
}

void TestEditing::undoRedoFromFocusedSpinBox()
{
    editor()->setSelection(Kind::Workload);
    auto* layers = fieldLabelled<views::IntField>(editor()->workloadEditor(), "Layers");
    QVERIFY(layers);
    QCOMPARE(document()->scenario().workload.layers, 4);
    typeInto(layers, QStringLiteral("6"));
    commit(layers);
    QCOMPARE(document()->scenario().workload.layers, 6);
    QCOMPARE(stack()->undoText(), QStringLiteral("Set Layers to 6"));
    QVERIFY(layers->hasFocus());

    // Ctrl+Z in the focused spin box undoes the document, not the box's text.
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(document()->scenario().workload.layers, 4);
    QCOMPARE(layers->value(), 4);
    QVERIFY(layers->hasFocus());
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Z,
                    Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(document()->scenario().workload.layers, 6);
    QCOMPARE(layers->value(), 6);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(document()->scenario().workload.layers, 4);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Y, Qt::ControlModifier);
    QCOMPARE(document()->scenario().workload.layers, 6);
}

void TestEditing::undoFromFocusedLineEditAndHalfTypedText()
{
    editor()->setSelection(Kind::Scenario);
    views::TextField* name = editor()->scenarioEditor()->nameField();
    typeInto(name, QStringLiteral("Two buildings"));
    commit(name);
    QCOMPARE(document()->scenario().name, std::string("Two buildings"));
    QCOMPARE(stack()->undoText(), QStringLiteral("Set Scenario Name to Two buildings"));

    // Half-typed text: the first Ctrl+Z drops the typing, the document is untouched.
    typeInto(name, QStringLiteral("Thr"));
    QCOMPARE(name->text(), QStringLiteral("Thr"));
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(name->text(), QStringLiteral("Two buildings"));
    QCOMPARE(document()->scenario().name, std::string("Two buildings"));
    // The next one undoes the rename.
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(document()->scenario().name, std::string("Empty"));
    QCOMPARE(name->text(), QStringLiteral("Empty"));
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Z,
                    Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(document()->scenario().name, std::string("Two buildings"));

    // The same in a spin box: typed "12" without Enter is dropped, layers stay.
    editor()->setSelection(Kind::Workload);
    auto* layers = fieldLabelled<views::IntField>(editor()->workloadEditor(), "Layers");
    typeInto(layers, QStringLiteral("12"));
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(layers->value(), 4);
    QCOMPARE(layers->text(), QStringLiteral("4"));
    QCOMPARE(document()->scenario().workload.layers, 4);
    QCOMPARE(document()->scenario().name, std::string("Two buildings"));

    // A multi-line description keeps its own text undo.
    editor()->setSelection(Kind::Scenario);
    views::NotesField* notes = editor()->scenarioEditor()->descriptionField();
    notes->setFocus();
    QTest::keyClicks(notes, QStringLiteral("x"));
    QTest::keyClick(notes, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(document()->scenario().name, std::string("Two buildings"));
}

void TestEditing::refusalsInUserWords_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("label");
    QTest::addColumn<QString>("typed");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<QString>("fixed");
    QTest::newRow("negative TP")
        << int(Kind::Parallelism) << "Tensor parallel TP (GPUs)"
        << "-4"
        << "TP must be a whole number ≥ 1 that divides the 8 attention heads, the 8 KV heads "
           "and the FFN size 4,096, and fits the 8-GPU scale-up domain: 1, 2, 4 or 8."
        << "2";
    QTest::newRow("zero TP") << int(Kind::Parallelism) << "Tensor parallel TP (GPUs)"
                             << "0"
                             << "0 is not a TP degree."
                             << "2";
    QTest::newRow("non-divisor TP") << int(Kind::Parallelism) << "Tensor parallel TP (GPUs)"
                                    << "3"
                                    << "TP 3 does not divide the 8 attention heads."
                                    << "4";
    QTest::newRow("zero PP") << int(Kind::Parallelism) << "Pipeline parallel PP (stages)"
                             << "0"
                             << "PP must be a whole number from 1 to the 4 layers"
                             << "2";
    QTest::newRow("PP above the layers")
        << int(Kind::Parallelism) << "Pipeline parallel PP (stages)"
        << "5"
        << "PP 5 is more than the 4 layers"
        << "2";
    QTest::newRow("zero pod count") << int(Kind::Datacenter) << "Count (pods)"
                                    << "0"
                                    << "A pod count must be a whole number from 1 to 100,000; "
                                       "0 is not."
                                    << "2";
    QTest::newRow("zero wavelengths") << int(Kind::Link) << "Wavelengths (λ)"
                                      << "0"
                                      << "Wavelengths must be a whole number from 1 to 4,096; "
                                         "0 is not."
                                      << "8";
    QTest::newRow("zero rate") << int(Kind::Link) << "Rate per wavelength (Gb/s)"
                               << "0"
                               << "Rate per wavelength must be from 1 to 100,000 Gb/s; 0 is not."
                               << "800";
}

void TestEditing::refusalsInUserWords()
{
    QFETCH(int, kind);
    QFETCH(QString, label);
    QFETCH(QString, typed);
    QFETCH(QString, expected);
    QFETCH(QString, fixed);
    if (Kind(kind) == Kind::Link) // a second datacenter brings the first link
        QVERIFY(m_window->edits()->addDatacenter({300, 0}, 0));
    const std::size_t steps = static_cast<std::size_t>(stack()->count());
    const core::Scenario before = document()->scenario();
    editor()->setSelection(Kind(kind), {0});
    views::PropertyEditorPage* page = editor()->currentPage();
    QVERIFY(page);
    QAbstractSpinBox* field = fieldLabelled<QAbstractSpinBox>(page, label);
    QVERIFY2(field, qPrintable(label));
    views::FieldRow* row = rowOf(field);

    QSignalSpy refused(editor(), &views::PropertyEditor::editRefused);
    typeInto(field, typed);
    commit(field);
    QVERIFY2(row->isRefused(), qPrintable(label));
    QCOMPARE(refused.count(), 1); // the status bar says it too
    QVERIFY2(row->message().contains(expected), qPrintable(row->message()));
    QVERIFY2(inUserWords(row->message()), qPrintable(row->message()));
    // Shown next to the field, wrapped, inside the panel: not a dialog.
    auto* message = row->findChild<QLabel*>();
    QVERIFY(message && message->isVisible() && message->wordWrap());
    QVERIFY(QApplication::activeModalWidget() == nullptr);
    QCOMPARE(document()->scenario(), before);
    QCOMPARE(static_cast<std::size_t>(stack()->count()), steps);
    // A look for review: the whole window with the refusal next to the field.
    QTest::qWait(50); // let the layouts settle
    QVERIFY(m_window->grab().save(QStringLiteral("/tmp/editing-refusal-%1.png")
                                      .arg(QString::fromLatin1(QTest::currentDataTag())
                                               .replace(QLatin1Char(' '), QLatin1Char('-')))));
    // The typed value stays to be corrected: "-4" is not read as 4.
    QCOMPARE(field->text().remove(QLatin1Char(',')).section(QLatin1Char(' '), 0, 0), typed);

    // Fixed: the message goes, the edit is applied.
    typeInto(field, fixed);
    commit(field);
    QVERIFY2(!row->isRefused(), qPrintable(row->message()));
    QVERIFY(!field->property("invalid").toBool());
    QCOMPARE(static_cast<std::size_t>(stack()->count()), steps + 1);
}

void TestEditing::globalBatchRefusalSaysWhatIsAccepted()
{
    // A checker-originated refusal: 12 sequences do not split over micro-batch 1 x DP 8.
    editor()->setSelection(Kind::Workload);
    auto* batch =
        fieldLabelled<views::IntField>(editor()->workloadEditor(), "Global batch (sequences)");
    QVERIFY(batch && batch->isEnabled());
    typeInto(batch, QStringLiteral("12"));
    commit(batch);
    views::FieldRow* row = rowOf(batch);
    QVERIFY(row->isRefused());
    QVERIFY2(row->message().contains(QStringLiteral(
                 "The global batch must be a multiple of micro-batch 1 × DP 8 = 8 sequences; 12 "
                 "is not (e.g. 8 or 16).")),
             qPrintable(row->message()));
    QVERIFY2(inUserWords(row->message()), qPrintable(row->message()));
    typeInto(batch, QStringLiteral("2048"));
    commit(batch);
    QVERIFY(!row->isRefused());
    QCOMPARE(row->message(), QString());
    QCOMPARE(document()->scenario().workload.globalBatch, 2048);
    QCOMPARE(stack()->undoText(), QStringLiteral("Set Global Batch to 2,048"));
}

void TestEditing::modelPickListIsOneUndoStep()
{
    editor()->setSelection(Kind::Workload);
    views::ChoiceField* model = editor()->workloadEditor()->modelField();
    QCOMPARE(model->value(), QStringLiteral("custom"));
    const int index = model->findData(QStringLiteral("Llama 3 70B"));
    QVERIFY(index > 0);
    QVERIFY(model->findData(QStringLiteral("GPT-3 175B")) > 0);
    QVERIFY(model->findData(QStringLiteral("Llama 3 8B")) > 0);
    QVERIFY(model->findData(QStringLiteral("Llama 3 405B")) > 0);
    QVERIFY(model->findData(QStringLiteral("DeepSeek-V3 671B")) > 0);
    QVERIFY(model->findData(QStringLiteral("Nemotron-4 15B")) > 0);
    QVERIFY(model->findData(QStringLiteral("Nemotron-4 340B")) > 0);
    const int steps = stack()->count();
    model->setCurrentIndex(index);
    emit model->activated(index);

    QCOMPARE(stack()->count(), steps + 1);
    QCOMPARE(stack()->undoText(), QStringLiteral("Set Model Llama 3 70B"));
    const core::Workload& w = document()->scenario().workload;
    QCOMPARE(w.name, std::string("Llama 3 70B"));
    QCOMPARE(w.layers, 80);
    QCOMPARE(w.hidden, 8192);
    QCOMPARE(w.heads, 64);
    QCOMPARE(w.kvHeads, 8);
    QCOMPARE(w.ffnHidden, 28672);
    QCOMPARE(w.activation, core::FfnActivation::Swiglu);
    QCOMPARE(w.vocab, 128256);
    QCOMPARE(w.seqLen, 8192);
    QCOMPARE(w.globalBatch, 8); // the batch is the scenario's
    QCOMPARE(model->value(), QStringLiteral("Llama 3 70B"));
    QTest::qWait(50);
    QVERIFY(m_window->grab().save(QStringLiteral("/tmp/editing-model.png")));

    // DeepSeek-V3 brings its MoE block.
    const int deepseek = model->findData(QStringLiteral("DeepSeek-V3 671B"));
    model->setCurrentIndex(deepseek);
    emit model->activated(deepseek);
    QCOMPARE(document()->scenario().workload.moe.experts, 256);
    QCOMPARE(document()->scenario().workload.moe.firstDenseLayers, 3);

    stack()->undo();
    stack()->undo();
    QCOMPARE(document()->scenario().workload, core::minimalScenario().workload);
    QCOMPARE(model->value(), QStringLiteral("custom"));
}

void TestEditing::newDatacenterFabricHoldsItsGpus()
{
    // dc-1 grown to 4,096 GPUs: more than its 2-tier radix-64 fabric holds (2,048 hosts). The
    // same edit sets the fabric, so it is the user's and stays as set, undersized.
    core::Datacenter dc = document()->scenario().topology.datacenters.front();
    dc.pods.front().domainsPerPod = 512;
    dc.fabric.leafOversubscription = 1.5;
    QVERIFY(m_window->edits()->setDatacenters({dc}));
    const core::Catalog catalog = core::effectiveCatalog(document()->scenario());
    QVERIFY(core::designFabric(document()->scenario().topology.datacenters.front(), catalog)
                .overCapacity);

    QVERIFY(m_window->edits()->addDatacenter({400, 0}, 0));
    const core::Datacenter& added = document()->scenario().topology.datacenters.back();
    QCOMPARE(core::gpusInDatacenter(added), std::int64_t{4096});
    const core::FabricDesign design = core::designFabric(added, catalog);
    QVERIFY(!design.overCapacity);
    QVERIFY(design.plane.capacityHosts >= design.plane.hostPorts);
    // The evaluation warns about dc-1's fabric only, not about the fresh copy's.
    const core::Evaluation evaluation = core::evaluate(document()->scenario());
    int overCapacity = 0;
    for (const core::Warning& warning : evaluation.warnings)
        if (warning.code == core::WarningCode::FabricOverCapacity) {
            ++overCapacity;
            QVERIFY2(core::warningText(warning).find(added.name) == std::string::npos,
                     core::warningText(warning).c_str());
        }
    QCOMPARE(overCapacity, 1); // dc-1's, listed once (the placement and the bill of materials
                               // both meet it)
    QVERIFY2(stack()->undoText().startsWith(QLatin1String("Add Datacenter")),
             qPrintable(stack()->undoText()));

    // A fresh copy of a datacenter that fits keeps its fabric.
    const core::Scenario empty = core::minimalScenario();
    core::Datacenter small = empty.topology.datacenters.front();
    QCOMPARE(app::fabricHoldingGpus(small, core::effectiveCatalog(empty)), small.fabric);
}

void TestEditing::scenarioNameAndDescriptionUndo()
{
    editor()->setSelection(Kind::Scenario);
    QVERIFY(editor()->currentPage() == editor()->scenarioEditor());
    QVERIFY(editor()->scenarioEditor()->title().contains(QLatin1String("Empty")));
    views::TextField* name = editor()->scenarioEditor()->nameField();
    typeInto(name, QStringLiteral("Two buildings, 100 km"));
    commit(name);
    QCOMPARE(document()->scenario().name, std::string("Two buildings, 100 km"));

    views::NotesField* notes = editor()->scenarioEditor()->descriptionField();
    notes->setFocus();
    notes->selectAll();
    QTest::keyClicks(notes, QStringLiteral("Compare one and two buildings."));
    name->setFocus(); // focus-out commits
    QCOMPARE(document()->scenario().description, std::string("Compare one and two buildings."));
    QCOMPARE(stack()->undoText(), QStringLiteral("Change Scenario Description"));

    stack()->undo();
    QCOMPARE(document()->scenario().description, core::minimalScenario().description);
    QCOMPARE(notes->toPlainText(), QString::fromStdString(core::minimalScenario().description));
    stack()->undo();
    QCOMPARE(document()->scenario().name, std::string("Empty"));
    QCOMPARE(name->text(), QStringLiteral("Empty"));
}

void TestEditing::undoTextsNameTheField()
{
    views::PropertyEditor* e = editor();
    e->setSelection(Kind::Parallelism);
    views::IntField* tp = e->parallelismEditor()->intField(QStringLiteral("tp"));
    tp->setValue(8);
    QCOMPARE(stack()->undoText(), QStringLiteral("Set TP to 8"));
    QCOMPARE(document()->scenario().parallelism.tp, 8);

    QVERIFY(m_window->edits()->addDatacenter({300, 0}, 0));
    e->setSelection(Kind::Link, {0});
    e->linkEditor()->distanceField()->setValue(100.0);
    QCOMPARE(stack()->undoText(), QStringLiteral("Set Distance dc-1↔dc-2 to 100 km"));

    e->setSelection(Kind::Workload);
    auto* seq = fieldLabelled<views::IntField>(e->workloadEditor(), "Sequence length (tokens)");
    seq->setValue(4096);
    QCOMPARE(stack()->undoText(), QStringLiteral("Set Sequence Length to 4,096"));

    // Eight edits, eight different lines in the Undo History.
    QStringList texts;
    for (int i = 0; i < stack()->count(); ++i)
        texts << stack()->text(i);
    QVERIFY2(!texts.contains(QStringLiteral("Change Workload")), qPrintable(texts.join(", ")));
    QVERIFY2(!texts.contains(QStringLiteral("Change Parallelism")), qPrintable(texts.join(", ")));
}

QTEST_MAIN(TestEditing)
#include "test_editing.moc"
