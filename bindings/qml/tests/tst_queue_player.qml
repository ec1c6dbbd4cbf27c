// QueuePlayer: a list of notes played one after another, the next by itself, on the virtual speaker.
import QtQuick
import VoicenoteTest
import Voicenote

VoicenoteTestCase {
    name: "QueuePlayer"

    Component {
        id: queueComponent
        QueuePlayer {
            property var items: []
            property var threads: []
            device: "vn_spk"
            deviceConfiguration: TestRig.speaker
            locations: [TestRig.note, TestRig.otherNote]
            onItemChanged: (index) => { items.push(index); threads.push(TestRig.onGuiThread()) }
            onEnded: threads.push(TestRig.onGuiThread())
        }
    }

    function test_plays_each_item_then_ends() {
        const queue = createTemporaryObject(queueComponent, this)
        compare(queue.count, 2)
        compare(queue.currentIndex, -1)
        const ended = spy(queue, "ended")
        const finished = spy(queue, "finished")
        const indexes = spy(queue, "currentIndexChanged")
        queue.playFrom(0)
        ended.wait(20000)
        compare(finished.count, 2)
        compare(finished.signalArguments[0][0], TestRig.note)
        compare(finished.signalArguments[1][0], TestRig.otherNote)
        compare(queue.items, [0, 1], "the first item loaded, then the second followed by itself")
        compare(queue.currentIndex, 1)
        verify(indexes.count >= 2)
        compare(queue.location, TestRig.otherNote)
        tryCompare(queue, "state", VoicePlayer.Stopped, 5000)
        verifyAllOnGuiThread(queue.threads)
    }

    function test_skip_listened_plays_only_the_unplayed_notes() {
        const queue = createTemporaryObject(queueComponent, this)
        queue.locations = [TestRig.note, TestRig.otherNote]
        queue.setListened(TestRig.note, false)
        queue.setListened(TestRig.otherNote, true)
        verify(!queue.isListened(TestRig.note))
        verify(queue.isListened(TestRig.otherNote))
        queue.skipListened = true
        const ended = spy(queue, "ended")
        const listened = spy(queue, "listened")
        queue.playFrom(0)
        ended.wait(20000)
        compare(queue.items, [0], "the listened second note was passed over")
        compare(listened.count, 1)
        compare(listened.signalArguments[0][0], TestRig.note)
        verify(queue.isListened(TestRig.note))
        queue.setListened(TestRig.note, false)
        queue.setListened(TestRig.otherNote, false)
    }

    function test_follows_the_list_and_previous_goes_back() {
        const queue = createTemporaryObject(queueComponent, this)
        queue.locations = [TestRig.note, TestRig.otherNote, TestRig.note]
        compare(queue.count, 3)
        const items = spy(queue, "itemChanged")
        queue.playFrom(1)
        compare(queue.currentIndex, 1)
        tryCompare(items, "count", 2, 20000)
        compare(items.signalArguments[0][0], 1)
        compare(items.signalArguments[1][0], 2, "the item after the second is the third, not the first")
        queue.previous()
        compare(queue.currentIndex, 1)
    }

    function test_refusals_become_failed() {
        const queue = createTemporaryObject(queueComponent, this)
        const failed = spy(queue, "failed")
        queue.playFrom(2)
        compare(failed.count, 1)
        compare(failed.signalArguments[0][0], "VN_E_INVALID_ARG")
        compare(queue.currentIndex, -1)
        queue.next()  // nothing loaded
        compare(failed.count, 2)
        compare(failed.signalArguments[1][0], "VN_E_MISUSE")
    }

    // The queue's items at URLs that need a header: the first loaded by playFrom, the next by the data source, both
    // with the queue's `headers`.
    function test_headers_reach_every_item_of_the_queue() {
        const queue = createTemporaryObject(queueComponent, this)
        const refusedBefore = UploadServer.notesRefused
        queue.headers = { "Authorization": UploadServer.privateAuthorization }
        queue.locations = [UploadServer.noteUrl(TestRig.note, "private"),
                           UploadServer.noteUrl(TestRig.otherNote, "private")]
        const ended = spy(queue, "ended")
        const finished = spy(queue, "finished")
        const failed = spy(queue, "failed")
        queue.playFrom(0)
        ended.wait(20000)
        compare(failed.count, 0)
        compare(finished.count, 2)
        compare(queue.items, [0, 1], "the second item followed by itself")
        compare(UploadServer.notesRefused, refusedBefore)
    }
}
