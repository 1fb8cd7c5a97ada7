import BenchSupport
import Testing

@Test func capturesStandardOutputAndTheExitStatus() throws {
    let outcome = try #require(ChildProcess(arguments: ["/bin/sh", "-c", "echo one; echo two; exit 3"],
                                            timeout: 10).run())
    #expect(outcome.output == "one\ntwo\n")
    #expect(outcome.status == 3)
    #expect(!outcome.timedOut)
}

@Test func passesArgumentsUnchanged() throws {
    let outcome = try #require(ChildProcess(arguments: ["/bin/echo", "a b", "$HOME", "'q'"], timeout: 10).run())
    #expect(outcome.output == "a b $HOME 'q'\n")
    #expect(outcome.status == 0)
}

@Test func killsTheWholeGroupAfterTheTimeout() throws {
    // The grandchild keeps standard output open: only killing the group ends the run.
    let outcome = try #require(ChildProcess(arguments: ["/bin/sh", "-c", "sleep 30 & sleep 30"], timeout: 0.3).run())
    #expect(outcome.timedOut)
    #expect(outcome.status == 128 + 9)
}

@Test func reportsAMissingProgramAsAShellFailure() throws {
    let outcome = try #require(ChildProcess(arguments: ["/nonexistent/program"], timeout: 10).run())
    #expect(outcome.status == 127)
    #expect(outcome.output.isEmpty)
}
