// What every suite here shares: a TestCase with a spy maker and the rig's checks (the rig is the runner's `rig`).
import QtQuick
import QtTest

TestCase {
    Component {
        id: spyComponent
        SignalSpy {}
    }

    /** A SignalSpy on `target`'s `signalName`, destroyed after the test function. */
    function spy(target, signalName) {
        return createTemporaryObject(spyComponent, this, { target: target, signalName: signalName })
    }

    /** Checks that handlers ran (`threads` holds one rig.onGuiThread() per handler call) and all on the GUI thread. */
    function verifyAllOnGuiThread(threads) {
        verify(threads.length > 0, "handlers ran")
        verify(threads.every(onGui => onGui), "every handler on the GUI thread: " + threads)
    }
}
