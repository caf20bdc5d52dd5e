"""nucleo-skills-core: a skilljar of general-purpose skills in the Agent Skills layout.

Each sub-folder of this package is one skill: a folder holding ``SKILL.md`` (YAML front matter
with ``name``, ``description`` and ``allowed-tools``, then the instructions). nucleo reads them
through the ``nucleo.skills`` entry point ``core``, with ``nucleo_skills_core`` as their bundle
id. The package holds no code: importing it does nothing.

* ``code-review``: review source files and report findings ranked by severity.
* ``summarize-files``: summarize what a folder or a set of text files holds.

Both use only the read-only tools of the ``files`` pack (``nucleo-tools-files``).
"""
