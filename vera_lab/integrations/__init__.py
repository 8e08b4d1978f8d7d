"""Carry a chunker or a sweep's recommendation into LangChain and LlamaIndex pipelines.

Each integration is an optional extra: ``pip install 'vera-lab[langchain]'`` or ``'vera-lab[llamaindex]'``.
"""
