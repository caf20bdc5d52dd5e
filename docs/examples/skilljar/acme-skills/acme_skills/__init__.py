"""Acme's weather skills: one folder per skill, each holding a SKILL.md."""
