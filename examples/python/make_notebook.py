# Writes study.ipynb (its cells, without outputs); tests/cli_python.sh runs it.
# SPDX-License-Identifier: MIT
import nbformat as nbf

md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
cells = [
    md("# trainsim from Python\n\n"
       "Three questions of the README, asked from a notebook: one box of four A100s or sixteen "
       "DGX A100 nodes, how one model scales from 8 to 512 GPUs, and what to rent or buy to train "
       "Llama-2-13B within 30 days. Every figure comes from libtrainsim through the `trainsim` "
       "package (`pip install ./python`, README \"From Python\")."),
    code("%matplotlib inline\n"
         "import os\n"
         "import trainsim\n"
         "root = trainsim.source_dir()\n"
         "ex = lambda *p: os.path.join(root, \"examples\", *p)\n"
         "trainsim.version()"),
    md("## 4 GPUs in one box, or 16 nodes?\n\n"
       "GPT-3 1.3B on 26 B tokens (`examples/4gpu-vs-16node/`): the box, sixteen DGX A100 on "
       "InfiniBand, the same nodes on 10 GbE."),
    code("cmp = trainsim.compare(ex(\"4gpu-vs-16node\", \"box-4xa100.cfg\"),\n"
         "                       ex(\"4gpu-vs-16node\", \"dgx16-ib.cfg\"),\n"
         "                       ex(\"4gpu-vs-16node\", \"dgx16-10gbe.cfg\"))\n"
         "cmp[[\"name\", \"gpus\", \"iteration_time_s\", \"tokens_per_s\", \"time_to_train_s\", "
         "\"cost_usd\", \"comparison.scaling_efficiency\", \"bottleneck\"]]"),
    code("ax = trainsim.plot.breakdown(cmp, label=\"name\")"),
    md("## A sweep and its scaling curve\n\n"
       "The same model from 1 to 64 DGX A100 nodes (`examples/scaling-sweep/sweep.cfg`): "
       "the rows `trainsim sweep` prints."),
    code("df = trainsim.sweep(ex(\"scaling-sweep\", \"sweep.cfg\"))\n"
         "df[[\"nodes\", \"gpus\", \"iteration_time_s\", \"tokens_per_s\", \"mfu\", "
         "\"exposed_comm_s\", \"cost_usd\"]]"),
    code("ax = trainsim.plot.scaling(df, log_x=True)"),
    md("## What to rent or buy\n\n"
       "Llama-2-13B on 1 T tokens within 30 days (`examples/what-to-buy/`): every option of "
       "the bundled catalog, and the time-versus-cost frontier of those meeting the deadline."),
    code("opts = trainsim.advise(ex(\"what-to-buy\", \"scenario.cfg\"), deadline=\"30d\")\n"
         "opts[opts[\"frontier\"]][[\"name\", \"gpus\", \"time_to_train_s\", \"cost_usd\", "
         "\"energy_kwh\"]]"),
    code("ax = trainsim.plot.frontier(opts[opts[\"constraints_missed\"].str.len() == 0])"),
]
nb = nbf.v4.new_notebook(cells=cells, metadata={"kernelspec": {
    "name": "python3", "display_name": "Python 3", "language": "python"}})
nbf.write(nb, "study.ipynb")
