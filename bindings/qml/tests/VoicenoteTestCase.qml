// What every suite here shares: a TestCase with a spy maker, screenshots (grabToImage) and the rig's checks (the
// singleton TestRig of the suites' module VoicenoteTest).
import QtQuick
import QtTest
import VoicenoteTest

TestCase {
    Component {
        id: spyComponent
        SignalSpy {}
    }

    /** A SignalSpy on `target`'s `signalName`, destroyed after the test function. */
    function spy(target, signalName) {
        return createTemporaryObject(spyComponent, this, { target: target, signalName: signalName })
    }

    /** Checks that handlers ran (`threads` holds one TestRig.onGuiThread() per handler call) and all on the GUI thread. */
    function verifyAllOnGuiThread(threads) {
        verify(threads.length > 0, "handlers ran")
        verify(threads.every(onGui => onGui), "every handler on the GUI thread: " + threads)
    }

    /** The item grabbed with grabToImage (waited for), saved as `name` in the test output, and its colours counted
     *  (`color`: which pixels `matching` counts). */
    function grab(item, name, color) {
        const path = TestRig.outputPath(name)
        let saved = null
        // The result lives only during the callback: it is saved there.
        verify(item.grabToImage(result => saved = result.saveToFile(path)), "the grab started")
        tryVerify(() => saved !== null, 5000, "the grab came")
        verify(saved, "saved as " + path)
        return TestRig.colours(path, color === undefined ? "#000000" : color)
    }

    /** A screenshot of `item` as `name` in the test output, checked not blank (more than one colour). */
    function screenshot(item, name) {
        const picture = grab(item, name)
        verify(picture.width > 0 && picture.colours > 1, name + " is not blank: " + JSON.stringify(picture))
        return picture
    }
}
