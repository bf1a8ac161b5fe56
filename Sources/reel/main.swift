import Foundation
import ReelCLI

signal(SIGPIPE, SIG_IGN)
SignalHandling.install()
exit(await ReelCLI.main(Array(CommandLine.arguments.dropFirst())))
