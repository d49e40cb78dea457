"""Pages of the documentation site generated from the code (``mkdocs.yml`` loads
:mod:`docsgen.hooks`): the measure reference from the metric registry, and the command-line
reference from the argparse parsers."""
