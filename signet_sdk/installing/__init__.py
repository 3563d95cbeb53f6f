"""Helpers the harness installers share: editing a user's config file in place.

A harness's config file is the user's: an installer may add and remove its
own entries, never reformat or drop what is already there. The editors here
touch only the bytes of the members they change.

What every installer does alike lives here too, so the seven stay one
command to their users: :mod:`.cli` (options, exit codes, refusals,
show-or-write of planned changes), :mod:`.files` (read, replace atomically,
back up, diff, recognise our marker), :mod:`.command` (the command an
installer registers, and how it recognises its own entries) and
:mod:`.hook_groups` (the ``hooks`` block Claude Code and Codex share),
:mod:`.group_lists` (hook groups spliced as text into a settings file with
comments, Gemini CLI's and Qwen Code's),
:mod:`.mcp` (our ``signet`` server in a JSON ``mcpServers`` file),
:mod:`.settings_file` (both in one settings file, by one rule for Gemini
CLI and Qwen Code) and
:mod:`.originals` (the user's original bytes, kept beside a file until
uninstall restores them) and :mod:`.undo` (the record of one settings
file's install, and the uninstall that reads it). The text editors:
:mod:`.json5edit` (members and items of a JSON or JSON5 document),
:mod:`.json_layout` (what they add, laid out as the file lays out its own),
:mod:`.json_reshape` (a JSON file edited until it holds a wanted value),
:mod:`.toml_edits` (one checked tomlkit edit of a TOML config) and
:mod:`.toml_places` (where a line the user appended into our TOML tables
belongs). What to merge where stays in each adapter.
"""
