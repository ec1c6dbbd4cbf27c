// Uploader: the rig's note sent to a real HTTP server on 127.0.0.1 (the singleton UploadServer), multipart and raw;
// a server error and a refusal as `failed`.
import QtQuick
import VoicenoteTest
import Voicenote

VoicenoteTestCase {
    name: "Uploader"

    Component {
        id: uploaderComponent
        Uploader {
            property var states: []
            property var threads: []
            endpoint: UploadServer.url + "/channels/messaging/general/file"
            headers: ({ "Authorization": "Bearer qml-test" })
            query: ({ "api_key": "key" })
            onStateChanged: { states.push(state); threads.push(TestRig.onGuiThread()) }
            onUploaded: threads.push(TestRig.onGuiThread())
            onFailed: threads.push(TestRig.onGuiThread())
        }
    }

    function test_multipart_upload() {
        const uploader = createTemporaryObject(uploaderComponent, this)
        compare(uploader.state, Uploader.Pending)
        compare(uploader.payloadJson, "")
        const uploaded = spy(uploader, "uploaded")
        const before = UploadServer.requests.length
        uploader.upload(TestRig.note)
        uploaded.wait(15000)
        const payload = JSON.parse(uploaded.signalArguments[0][0])
        verify(payload.asset_url.startsWith("https://cdn.example.com/"), uploaded.signalArguments[0][0])
        fuzzyCompare(payload.duration, TestRig.noteSeconds, 0.05)
        compare(uploader.payloadJson, uploaded.signalArguments[0][0])
        compare(uploader.state, Uploader.Uploaded)
        compare(uploader.progress, 1)
        verify(uploader.states.indexOf(Uploader.Uploading) >= 0, "it went through uploading: " + uploader.states)
        compare(UploadServer.requests.length, before + 1)
        const request = UploadServer.requests[before]
        compare(request.method, "POST")
        compare(request.path, "/channels/messaging/general/file?api_key=key")
        verify(request.contentType.startsWith("multipart/form-data"), request.contentType)
        compare(request.authorization, "Bearer qml-test")
        verify(request.bodySize > TestRig.fileSize(TestRig.note), "the note in the body: " + request.bodySize)
        verifyAllOnGuiThread(uploader.threads)
    }

    function test_raw_upload_takes_matrix_content_uri() {
        const uploader = createTemporaryObject(uploaderComponent, this,
                                               { mode: Uploader.Raw, endpoint: UploadServer.url + "/upload" })
        const uploaded = spy(uploader, "uploaded")
        const before = UploadServer.requests.length
        uploader.upload(TestRig.note)
        uploaded.wait(15000)
        verify(JSON.parse(uploader.payloadJson).asset_url.startsWith("mxc://example.com/"), uploader.payloadJson)
        compare(UploadServer.requests[before].bodySize, TestRig.fileSize(TestRig.note), "the bare file")
    }

    function test_server_error_fails_then_retry() {
        const uploader = createTemporaryObject(uploaderComponent, this, { endpoint: UploadServer.url + "/fail/file" })
        const failed = spy(uploader, "failed")
        uploader.upload(TestRig.note)
        failed.wait(15000)
        compare(failed.signalArguments[0][0], "VN_E_NETWORK")
        verify(failed.signalArguments[0][1].indexOf("500") >= 0, failed.signalArguments[0][1])
        compare(uploader.state, Uploader.Failed)
        verify(TestRig.fileSize(TestRig.note) > 0, "the note is untouched")
        uploader.retry()
        tryCompare(failed, "count", 2, 15000)
        compare(failed.signalArguments[1][0], "VN_E_NETWORK")
    }

    function test_refusals_become_failed() {
        const uploader = createTemporaryObject(uploaderComponent, this)
        const failed = spy(uploader, "failed")
        uploader.upload(TestRig.directory + "/missing.ogg")
        compare(failed.count, 1)
        compare(failed.signalArguments[0][0], "VN_E_NOT_FOUND")
        uploader.endpoint = "http://127.0.0.1:1/other"  // read when the uploader was made
        compare(failed.count, 2)
        compare(failed.signalArguments[1][0], "VN_E_MISUSE")
        uploader.retry()  // nothing failed
        compare(failed.count, 3)
        compare(failed.signalArguments[2][0], "VN_E_MISUSE")
    }

    function test_bad_endpoint_is_refused() {
        const uploader = createTemporaryObject(uploaderComponent, this, { endpoint: "ftp://example.com/file" })
        const failed = spy(uploader, "failed")
        uploader.upload(TestRig.note)
        compare(failed.count, 1)
        compare(failed.signalArguments[0][0], "VN_E_INVALID_ARG")
    }
}
