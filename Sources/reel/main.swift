import Foundation
import ReelCLI

signal(SIGPIPE, SIG_IGN)
exit(await ReelCLI.main(Array(CommandLine.arguments.dropFirst())))
