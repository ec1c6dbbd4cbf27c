// Where the module comes from: the plugin the suites run is the one on the run's import path (an installed prefix's
// lib/qt6/qml in `make test-qml`, else the build tree's), and with an installed prefix the voicenote library it
// loads is that prefix's lib/libvoicenote.so.N, not the build tree's.
import QtQuick
import Voicenote
import VoicenoteTest

VoicenoteTestCase {
    name: "Module"

    VoicePlayer {
        id: player
    }

    function test_the_plugin_is_the_one_on_the_import_path() {
        verify(player !== null)
        const plugin = TestRig.canonicalPath(TestRig.importPath + "/Voicenote/libvoicenote_qml.so")
        verify(plugin !== "", "a plugin in " + TestRig.importPath + "/Voicenote")
        const loaded = TestRig.loadedLibraries()
        verify(loaded.indexOf(plugin) >= 0, "loaded: " + loaded.join(", "))
        compare(loaded.filter(path => path.endsWith("/libvoicenote_qml.so")).length, 1, loaded.join(", "))
    }

    function test_an_installed_module_loads_its_prefix_library() {
        if (!TestRig.installed)
            skip("the suites run against the build tree (VOICENOTE_QML_IMPORT_PATH unset)")
        const libraries = TestRig.loadedLibraries().filter(path => path.indexOf("/libvoicenote.so") >= 0)
        compare(libraries.length, 1, libraries.join(", "))
        const prefixLibrary = TestRig.canonicalPath(TestRig.importPath + "/../..")
        verify(libraries[0].startsWith(prefixLibrary + "/libvoicenote.so."), libraries[0] + " in " + prefixLibrary)
    }
}
