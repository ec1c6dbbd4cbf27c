import Testing
import VoiceNoteCore

/// `Location`, the one parser of a location's text: every form a host may give, what it becomes, and the status of
/// each refusal.
@Suite struct LocationTests {
    /// The status `text` is refused with, or nil when it parses.
    static func refusal(_ text: String) -> Status? {
        do throws(VoiceNoteError) {
            _ = try Location(text)
            return nil
        } catch {
            return error.status
        }
    }

    @Test func pathsAreTakenAsTheyAre() throws {
        #expect(try Location("/tmp/a b/é.ogg") == .file(path: "/tmp/a b/é.ogg", text: "/tmp/a b/é.ogg"))
        #expect(try Location("notes/a.ogg") == .file(path: "notes/a.ogg", text: "notes/a.ogg"))
        #expect(try Location("../a%20b.ogg") == .file(path: "../a%20b.ogg", text: "../a%20b.ogg"))  // no escapes in paths
        #expect(try Location("a.ogg").isFile && Location("a.ogg").text == "a.ogg")
        // A colon after something that cannot start a scheme leaves a path: a digit, a space, a slash.
        #expect(try Location("12:30.ogg") == .file(path: "12:30.ogg", text: "12:30.ogg"))
        #expect(try Location("note 1:2.ogg").isFile)
        #expect(try Location("/srv/a://b") == .file(path: "/srv/a://b", text: "/srv/a://b"))
    }

    @Test func aRelativePathThatLooksLikeAURLIsWrittenWithADotSlash() throws {
        // RFC 3986's rule for relative references: `a://b` is a URL of the scheme `a` (refused), `./a://b` the file.
        #expect(Self.refusal("a://b") == .unsupported)
        #expect(try Location("./a://b") == .file(path: "./a://b", text: "./a://b"))
        #expect(Self.refusal("voice:1.ogg") == .unsupported)
        #expect(try Location("./voice:1.ogg").isFile)
    }

    @Test func fileURLsAreDecodedToTheirPath() throws {
        #expect(try Location("file:///tmp/a%20b/%C3%A9.ogg") == .file(path: "/tmp/a b/é.ogg", text: "file:///tmp/a%20b/%C3%A9.ogg"))
        #expect(try Location("file://localhost/tmp/x.ogg") == .file(path: "/tmp/x.ogg", text: "file://localhost/tmp/x.ogg"))
        #expect(try Location("FILE:///tmp/x.ogg") == .file(path: "/tmp/x.ogg", text: "FILE:///tmp/x.ogg"))
        #expect(try Location("file://LOCALHOST/x") == .file(path: "/x", text: "file://LOCALHOST/x"))
        // Another host, no path, a bad escape, an escaped NUL or bytes that are not UTF-8: refused.
        for bad in ["file://otherhost/tmp/x.ogg", "file://", "file:relative.ogg", "file:/tmp/x.ogg", "file:///a%2", "file:///a%00b", "file:///%FF"] {
            #expect(Self.refusal(bad) == .invalidArgument, "\(bad)")
        }
    }

    @Test func httpURLsAreRemote() throws {
        #expect(try Location("https://cdn.example.com/a.ogg?sig=1") == .remote(url: "https://cdn.example.com/a.ogg?sig=1"))
        #expect(try Location("http://127.0.0.1:8080/a") == .remote(url: "http://127.0.0.1:8080/a"))
        #expect(try Location("HTTPS://Example.COM/A.ogg") == .remote(url: "HTTPS://Example.COM/A.ogg"))
        #expect(try Location("Http://x/a").isFile == false)
        #expect(try Location(url: "https://x/a") == .remote(url: "https://x/a"))
        // No host, spaces, control characters, or a form without `//`: refused, never taken as a path.
        for bad in ["http://", "https:///a.ogg", "http://?q", "http://a b/c", "http://x/\u{7}", "http:x/a.ogg"] {
            #expect(Self.refusal(bad) == .invalidArgument, "\(bad)")
        }
    }

    @Test func initURLTakesOnlyHTTPURLs() {
        for bad in ["/tmp/a.ogg", "file:///a.ogg", "ftp://example.com/a.ogg", "", "mxc://matrix.org/x"] {
            #expect(throws: VoiceNoteError.self, "\(bad)") { _ = try Location(url: bad) }
        }
        do {
            _ = try Location(url: "https://user:secret@cdn.example/a b?token=t")
            Issue.record("a URL with a space was taken")
        } catch {
            #expect(error.status == .invalidArgument && !error.message.contains("secret") && !error.message.contains("token"))
        }
    }

    @Test func otherSchemesAreUnsupportedNamingTheScheme() {
        for text in ["ftp://example.com/a.ogg", "mxc://matrix.org/abc", "content://media/1", "s3://bucket/a",
                     "data:audio/ogg;base64,T2dnUw==", "javascript:alert(1)", "JavaScript://%0aalert(1)"] {
            do {
                _ = try Location(text)
                Issue.record("\(text) was taken")
            } catch {
                // Named as written: "mxc://" for a URL with an authority, "data:" for one without.
                let scheme = String(text.prefix { $0 != ":" }).lowercased()
                let named = text.dropFirst(scheme.count + 1).hasPrefix("//") ? "\(scheme):// " : "\(scheme): "
                #expect(error.status == .unsupported && error.message.hasPrefix(named), "\(text): \(error)")
            }
        }
    }

    @Test func emptyTextAndNULBytesAreRefused() {
        #expect(Self.refusal("") == .invalidArgument)
        #expect(Self.refusal("/tmp/a\0b.ogg") == .invalidArgument)
        #expect(Self.refusal("https://x/a\0b") == .invalidArgument)
        #expect(Self.refusal("\0") == .invalidArgument)
    }

    @Test func localPathRefusesURLs() throws {
        #expect(try Location.localPath(of: "file:///tmp/a%20b") == "/tmp/a b")
        #expect(try Location.localPath(of: "a.ogg") == "a.ogg")
        #expect(throws: VoiceNoteError(.unsupported, "https://x/a is read as a URL source, not as a file")) {
            _ = try Location.localPath(of: "https://x/a?sig=secret")
        }
    }

    @Test func schemesFollowRFC3986() {
        #expect(Location.scheme(of: "HTTPS://x") == "https")
        #expect(Location.scheme(of: "svn+ssh://x") == "svn+ssh")
        #expect(Location.scheme(of: "mxc:x") == "mxc")
        #expect(Location.scheme(of: "1a://x") == nil)
        #expect(Location.scheme(of: "./a://x") == nil)
        #expect(Location.scheme(of: ":x") == nil)
        #expect(Location.scheme(of: "é://x") == nil)
        #expect(Location.scheme(of: "/abs/path") == nil)
    }

    @Test func redactionDropsQueryFragmentAndCredentials() {
        #expect(Location.redacted("https://user:pw@cdn.example/a.ogg?sig=1#t") == "https://cdn.example/a.ogg")
        #expect(Location.redacted("/tmp/a.ogg") == "/tmp/a.ogg")
    }
}
