#!/usr/bin/env python3
"""A character-level LSTM language model, written as a PyTorch script: only the imports below differ from the
torch version (``import torch``, ``import torch.nn as nn``, ...).

    GLIA_LIBRARY=build/release/src/libglia.so PYTHONPATH=bindings/python \\
        /usr/bin/python3 examples/python/char_lstm.py --steps 150

Trains Embedding -> LSTM (2 layers, dropout) -> Linear on lines of different lengths, batched as one
PackedSequence (torch.nn.utils.rnn.pack_sequence), with Adam and gradient clipping; then generates text
character by character, carrying the LSTM state (h, c). Prints the loss every 25 steps and, last,
``final loss: X.XXXX`` and the generated line.
"""

import argparse

import glia as torch
import glia.nn as nn
import glia.nn.functional as F
from glia.nn.utils.rnn import pack_sequence, pad_packed_sequence

LINES = [
    "the cat sat on the mat.",
    "the dog sat on the log.",
    "a cat and a dog.",
    "the mat and the log sat.",
]


class CharLM(nn.Module):
    def __init__(self, vocab, embed=16, hidden=64, layers=2, dropout=0.1):
        super().__init__()
        self.embed = nn.Embedding(vocab, embed)
        self.lstm = nn.LSTM(embed, hidden, num_layers=layers, dropout=dropout, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, packed_or_ids, state=None):
        if isinstance(packed_or_ids, torch.Tensor):
            out, state = self.lstm(self.embed(packed_or_ids), state)
            return self.head(out), state
        # A PackedSequence of character ids: embed its data, keep its batch layout.
        data = self.embed(packed_or_ids.data)
        packed = type(packed_or_ids)(data, packed_or_ids.batch_sizes, packed_or_ids.sorted_indices,
                                     packed_or_ids.unsorted_indices)
        out, state = self.lstm(packed, state)
        padded, lengths = pad_packed_sequence(out, batch_first=True)
        return self.head(padded), state


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(args.seed)

    chars = sorted(set("".join(LINES)) | {"\n"})
    stoi = {c: i for i, c in enumerate(chars)}
    inputs = [torch.tensor([stoi[c] for c in line]) for line in LINES]
    targets = [torch.tensor([stoi[c] for c in line[1:] + "\n"]) for line in LINES]
    x = pack_sequence(inputs, enforce_sorted=False)
    y = nn.utils.rnn.pad_sequence(targets, batch_first=True, padding_value=-100)

    model = CharLM(len(chars))
    print(model)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    loss = None
    for step in range(1, args.steps + 1):
        model.train()
        logits, _ = model(x)
        loss = F.cross_entropy(logits.reshape(-1, len(chars)), y.reshape(-1), ignore_index=-100)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 25 == 0:
            print("step %d loss %.4f" % (step, loss.item()))

    model.eval()
    with torch.no_grad():
        state = None
        ids = torch.tensor([[stoi["t"]]])
        text = "t"
        for _ in range(40):
            logits, state = model(ids, state)
            ids = logits[:, -1].argmax(-1).reshape(1, 1)
            c = chars[ids.item()]
            if c == "\n":
                break
            text += c
    print("final loss: %.4f" % loss.item())
    print("generated: " + text)


if __name__ == "__main__":
    main()
