"""The tiny language models' pretraining corpus, as plain text a reader can check.

One example a line: the prompt (``helper`` or ``main``), a bar, then the
response as space-separated tokens. A line repeated is an example seen twice.
The counts here are the whole of "pretraining" (see :mod:`lab.lm.tokens`): the helper
has seen three names for the same function, and a few buggy ``w + h`` bodies;
the main agent has seen calls to each name, and the product written out inline.
It is kept as a Python module so the lab's zip carries it like any other source.
"""

# --8<-- [start:corpus]
CORPUS = """\
helper | def area ( w , h ) : return w * h
helper | def area ( w , h ) : return w * h
helper | def area ( w , h ) : return w * h
helper | def area ( w , h ) : return w * h
helper | def rect ( w , h ) : return w * h
helper | def rect ( w , h ) : return w * h
helper | def rect ( w , h ) : return w * h
helper | def rect ( w , h ) : return w * h
helper | def size ( w , h ) : return w * h
helper | def size ( w , h ) : return w * h
helper | def size ( w , h ) : return w * h
helper | def size ( w , h ) : return w * h
helper | def area ( w , h ) : return w + h
helper | def rect ( w , h ) : return w + h
helper | def size ( w , h ) : return w + h
main | return area ( w , h )
main | return area ( w , h )
main | return area ( w , h )
main | return rect ( w , h )
main | return rect ( w , h )
main | return rect ( w , h )
main | return size ( w , h )
main | return size ( w , h )
main | return size ( w , h )
main | return w * h
main | return w * h
"""
# --8<-- [end:corpus]
