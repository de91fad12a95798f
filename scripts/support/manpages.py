#!/usr/bin/env python3
"""Writes section-1 manual pages for a swift-argument-parser command and each of its subcommands,
from what the command itself says about its arguments (`COMMAND --experimental-dump-help`, the
JSON that swift-argument-parser's generate-manual tool reads too).

    scripts/support/manpages.py [--date YYYY-MM-DD] [--source "portal-auth 0.1.0"] EXECUTABLE OUTPUT_DIR

One page per command, named as git names its pages: portal-auth.1, portal-auth-login.1,
portal-auth-token.1, ... (`man portal-auth-login`). Hidden commands and options are left out.
Used by scripts/package.sh; the package's pages are always generated, never edited by hand.

Why not the generate-manual plugin of swift-argument-parser 1.8.2 (it works): it builds every
product of the package (benchmark and fuzz targets included) in the configuration it is given,
without --static-swift-stdlib, names subcommand pages `portal-auth.login.1` (`man
portal-auth.login`), and runs examples into the next paragraph; see docs/install.md.
"""

import argparse
import json
import subprocess
import sys


def roff(text):
    """Text safe in a roff line: backslashes, hyphens of options, a leading dot or quote."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def flag_names(argument):
    names = []
    for name in argument.get("names") or []:
        prefix = {"long": "--", "short": "-", "longWithSingleDash": "-"}.get(name["kind"], "--")
        names.append(prefix + name["name"])
    return names


def synopsis_item(argument):
    value = argument.get("valueName") or "value"
    if argument["kind"] == "positional":
        text = "\\fI<%s>\\fR" % roff(value)
    else:
        name = roff(flag_names(argument)[0]) if argument.get("names") else ""
        text = "\\fB%s\\fR" % name
        if argument["kind"] == "option":
            text += " \\fI<%s>\\fR" % roff(value)
    if argument.get("isRepeating"):
        text += " ..."
    if argument.get("isOptional"):
        text = "[" + text + "]"
    return text


def paragraphs(text):
    """A discussion as roff: each unindented line a paragraph, indented lines (examples) kept as they are."""
    out = []
    in_example = False
    for line in text.splitlines():
        if line.startswith(" ") and line.strip():
            if not in_example:
                out += [".PP", ".RS 4", ".nf"]
                in_example = True
            out.append(roff(line.strip()))
            continue
        if in_example:
            out += [".fi", ".RE"]
            in_example = False
        if line.strip():
            out += [".PP", roff(line.strip())]
    if in_example:
        out += [".fi", ".RE"]
    return out


def visible(items):
    return [i for i in items or [] if i.get("shouldDisplay", True)]


def page(command, path, date, source):
    name = "-".join(path)
    spoken = " ".join(path)
    abstract = command.get("abstract") or spoken
    lines = [
        '.TH "%s" "1" "%s" "%s" "User Commands"' % (name.upper(), date, source),
        ".SH NAME",
        "%s \\- %s" % (roff(name), roff(abstract.rstrip("."))),
        ".SH SYNOPSIS",
        ".B %s" % roff(spoken),
    ]
    arguments = visible(command.get("arguments"))
    subcommands = [s for s in visible(command.get("subcommands")) if s["commandName"] != "help"]
    lines += [synopsis_item(a) for a in arguments]
    if subcommands:
        lines.append("\\fI<subcommand>\\fR")
    lines += [".SH DESCRIPTION", roff(abstract)]
    if command.get("discussion"):
        lines += paragraphs(command["discussion"])
    if arguments:
        lines.append(".SH OPTIONS")
        for argument in arguments:
            lines.append(".TP")
            value = argument.get("valueName") or "value"
            if argument["kind"] == "positional":
                lines.append("\\fI<%s>\\fR" % roff(value))
            else:
                head = ", ".join("\\fB%s\\fR" % roff(n) for n in flag_names(argument))
                if argument["kind"] == "option":
                    head += " \\fI<%s>\\fR" % roff(value)
                lines.append(head)
            text = argument.get("abstract") or ""
            if argument.get("defaultValue") not in (None, ""):
                text += " (default: %s)" % argument["defaultValue"]
            lines.append(roff(text.strip()) or "\\&")
            if argument.get("discussion") and isinstance(argument["discussion"], str):
                lines += paragraphs(argument["discussion"])
    if subcommands:
        lines.append(".SH SUBCOMMANDS")
        for sub in subcommands:
            lines += [".TP", "\\fB%s\\fR(1)" % roff("-".join(path + [sub["commandName"]]))]
            lines.append(roff(sub.get("abstract") or ""))
    see_also = []
    if len(path) > 1:
        see_also.append("\\fB%s\\fR(1)" % roff("-".join(path[:-1])))
    see_also += ["\\fB%s\\fR(1)" % roff("-".join(path + [s["commandName"]])) for s in subcommands]
    if see_also:
        lines += [".SH SEE ALSO", ",\n".join(see_also)]
    pages = [(name + ".1", "\n".join(lines) + "\n")]
    for sub in subcommands:
        pages += page(sub, path + [sub["commandName"]], date, source)
    return pages


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("executable")
    parser.add_argument("output")
    parser.add_argument("--date", default="")
    parser.add_argument("--source", default="")
    options = parser.parse_args()
    dump = subprocess.run(
        [options.executable, "--experimental-dump-help"], capture_output=True, text=True, check=True
    ).stdout
    info = json.loads(dump)
    if info.get("serializationVersion") != 0:
        sys.exit("manpages.py: unknown --experimental-dump-help version %r" % info.get("serializationVersion"))
    command = info["command"]
    for file_name, text in page(command, [command["commandName"]], options.date, options.source):
        with open("%s/%s" % (options.output, file_name), "w", encoding="utf-8") as out:
            out.write(text)
        print(file_name)


if __name__ == "__main__":
    main()
