@testable import ReelCLI
import Testing

@Suite struct ArgumentParserTests {
    let spec = CommandSpec(
        name: "thing", abstract: "A test command.", usage: "IN [-o OUT]", positionals: 1...2,
        options: [.value("output", short: "o", "OUT", help: "Where."),
                  .flag("json", short: "j", help: "JSON."),
                  .flag("verbose", short: "v", help: "Talk."),
                  .value("filter", "NAME", help: "Repeatable.", repeatable: true)])

    @Test func longShortAndInlineForms() throws {
        let parsed = try ArgumentParser.parse(["in.mp4", "--output", "a.mp4", "-j"], spec: spec)
        #expect(parsed.positionals == ["in.mp4"])
        #expect(parsed.value("output") == "a.mp4")
        #expect(parsed.flag("json") && !parsed.flag("verbose"))
        #expect(try ArgumentParser.parse(["in", "--output=b.mp4"], spec: spec).value("output") == "b.mp4")
        #expect(try ArgumentParser.parse(["in", "-oc.mp4"], spec: spec).value("output") == "c.mp4")
        #expect(try ArgumentParser.parse(["in", "-o", "d.mp4"], spec: spec).value("output") == "d.mp4")
    }

    @Test func clusteredFlagsAndDoubleDash() throws {
        let parsed = try ArgumentParser.parse(["-jv", "--", "-weird-name.mp4"], spec: spec)
        #expect(parsed.flag("json") && parsed.flag("verbose"))
        #expect(parsed.positionals == ["-weird-name.mp4"])
        #expect(try ArgumentParser.parse(["-"], spec: spec).positionals == ["-"])
    }

    @Test func repeatableOptionsAccumulate() throws {
        let parsed = try ArgumentParser.parse(["in", "--filter", "a", "--filter", "b"], spec: spec)
        #expect(parsed.allValues("filter") == ["a", "b"])
        #expect(throws: UsageError.self) { try ArgumentParser.parse(["in", "-o", "a", "-o", "b"], spec: spec) }
    }

    @Test func errorsNameTheProblem() {
        #expect(throws: UsageError("unknown option '--bogus' for 'thing'", command: "thing")) {
            try ArgumentParser.parse(["in", "--bogus"], spec: spec)
        }
        #expect(throws: UsageError("unknown option '-x' for 'thing'", command: "thing")) {
            try ArgumentParser.parse(["in", "-x"], spec: spec)
        }
        #expect(throws: UsageError("--output needs a value (OUT)", command: "thing")) {
            try ArgumentParser.parse(["in", "--output"], spec: spec)
        }
        #expect(throws: UsageError("-o needs a value (OUT)", command: "thing")) {
            try ArgumentParser.parse(["in", "-o"], spec: spec)
        }
        #expect(throws: UsageError("--json is a flag and takes no value", command: "thing")) {
            try ArgumentParser.parse(["in", "--json=yes"], spec: spec)
        }
        #expect(throws: UsageError("unexpected argument 'c' for 'thing'", command: "thing")) {
            try ArgumentParser.parse(["a", "b", "c"], spec: spec)
        }
        #expect(throws: UsageError.self) { try ArgumentParser.parse([], spec: spec) }
    }

    @Test func helpSkipsPositionalChecks() throws {
        #expect(try ArgumentParser.parse(["--help"], spec: spec).flag("help"))
        #expect(spec.help.contains("-o, --output OUT"))
        #expect(spec.help.contains("Usage: reel thing IN [-o OUT]"))
    }

    @Test func typedValues() throws {
        let sized = CommandSpec(name: "s", abstract: "", usage: "", positionals: 0...0,
                                options: [.value("size", "WxH", help: ""), .value("crf", "N", help: "")])
        let parsed = try ArgumentParser.parse(["--size", "1280x720", "--crf", "23"], spec: sized)
        #expect(try parsed.size("size")! == (1280, 720))
        #expect(try parsed.int("crf", in: 0...51) == 23)
        #expect(throws: UsageError.self) { try ArgumentParser.parse(["--size", "big"], spec: sized).size("size") }
        #expect(throws: UsageError.self) { try ArgumentParser.parse(["--crf", "99"], spec: sized).int("crf", in: 0...51) }
    }
}
