#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore

/// Runs another program (the demo's speech synthesiser) and waits for it: posix_spawnp with standard input from
/// /dev/null and its output discarded, so nothing it prints mixes with ours.
enum Subprocess {
    /// Runs `arguments` (the first is looked up on PATH) to its end. - Throws: `.notFound` when the program is not
    /// installed, `.io` when it fails (naming its exit status or signal).
    static func run(_ arguments: [String]) throws(VoiceNoteError) {
        guard let program = arguments.first else { throw VoiceNoteError(.invalidArgument, "no program to run") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        let cArguments = arguments.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        let spawned = posix_spawnp(&pid, program, &actions, nil, cArguments, environ)
        guard spawned == 0 else {
            throw spawned == ENOENT ? VoiceNoteError(.notFound, "\(program) is not installed")
                : VoiceNoteError.fromErrno(spawned, "run \(program)")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw VoiceNoteError.fromErrno(errno, "wait for \(program)") }
        }
        let exited = status & 0x7F == 0
        guard exited, (status >> 8) & 0xFF == 0 else {
            let how = exited ? "exited with \((status >> 8) & 0xFF)" : "was killed by signal \(status & 0x7F)"
            throw VoiceNoteError(.io, "\(program) \(how)")
        }
    }
}
