"""litmus's Gradio app: paste a Triton kernel file, get the bound, the safety result and a counterexample or verdict.

Local only: it serves on 127.0.0.1 with Gradio's analytics off (with analytics on, Gradio looks up outside hosts at
start). The report logic lives in litmus/webdemo.py, shared with the static in-browser page, so the two cannot drift.

    python app.py [--port 7860]
"""
import argparse, os

os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"    # before gradio is imported: no calls to outside hosts

import gradio as gr
from litmus import webdemo

HOST = "127.0.0.1"


def run_check(source, spec, domain, dims):
    "The button's job: webdemo.report's fields for the page's boxes, and its Markdown for the full report."
    r = webdemo.report(source, spec, domain, dims)
    return r.verdict, r.bound, r.safety, r.counterexample or "(none)", r.markdown()


def build() -> gr.Blocks:
    sources = webdemo.examples()
    with gr.Blocks(title="litmus: check a Triton kernel", analytics_enabled=False) as demo:
        gr.Markdown("# litmus\nPaste a Triton kernel file (the `@triton.jit` kernel and its `LITMUS = {...}` launch literal). "
                    "litmus bounds the error a correct kernel may have, proves memory safety for all shapes, and searches for "
                    "an input that breaks the bound. Blank fields mean: as the file says.")
        with gr.Row():
            example = gr.Dropdown(list(sources), label="load a corpus kernel", value=None, elem_id="example")
        source = gr.Textbox(label="kernel file", lines=18, max_lines=60, elem_id="source")
        with gr.Row():
            spec = gr.Textbox(label="spec (e.g. softmax(x))", elem_id="spec")
            domain = gr.Textbox(label="domain (e.g. x in [-1e3, 1e3])", elem_id="domain")
            dims = gr.Textbox(label="sizes (e.g. N=1024)", elem_id="dims")
        button = gr.Button("Check", variant="primary", elem_id="check")
        with gr.Row():
            verdict = gr.Textbox(label="verdict", elem_id="verdict", interactive=False)
            bound = gr.Textbox(label="bound", elem_id="bound", interactive=False)
        safety = gr.Textbox(label="memory safety (all shapes)", lines=3, elem_id="safety", interactive=False)
        counterexample = gr.Textbox(label="counterexample / witness", lines=6, elem_id="counterexample", interactive=False)
        full = gr.Markdown(elem_id="report")
        example.change(lambda name: sources.get(name, ""), example, source)
        button.click(run_check, [source, spec, domain, dims], [verdict, bound, safety, counterexample, full])
    return demo


def main(argv=None):
    p = argparse.ArgumentParser(description="litmus's local Gradio app (127.0.0.1 only)")
    p.add_argument("--port", type=int, default=int(os.environ.get("LITMUS_PORT", 7860)))
    args = p.parse_args(argv)
    build().launch(server_name=HOST, server_port=args.port, share=False, show_error=True)


if __name__ == "__main__":
    main()
