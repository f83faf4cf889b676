#!/usr/bin/env python3
"""A Transformer-encoder text classifier, written as a PyTorch script: only the imports below differ from the
torch version (``import torch``, ``import torch.nn as nn``, ...).

    GLIA_LIBRARY=build/release/src/libglia.so PYTHONPATH=bindings/python \\
        /usr/bin/python3 examples/python/transformer_classifier.py --steps 60

Sentences of different lengths (a sentiment word among neutral ones) are padded into one batch;
Embedding + learned positions -> nn.TransformerEncoder (batch_first, src_key_padding_mask for the padding)
-> masked mean over the tokens -> Linear to two classes, trained with Adam and cross-entropy. Prints the
loss every 10 steps and, last, ``final loss: X.XXXX`` and ``accuracy: X.XX`` on held-out sentences.
"""

import argparse
import random

import glia as torch
import glia.nn as nn
import glia.nn.functional as F

POSITIVE = ["good", "great", "fine", "lovely"]
NEGATIVE = ["bad", "awful", "poor", "dull"]
NEUTRAL = ["the", "movie", "was", "plot", "and", "acting", "really", "quite", "story", "it"]
PAD = "<pad>"


def sentences(n, rng):
    """n (words, label) pairs: 2 to 7 neutral words with one sentiment word somewhere."""
    out = []
    for _ in range(n):
        label = rng.randrange(2)
        words = [rng.choice(NEUTRAL) for _ in range(rng.randrange(2, 8))]
        words.insert(rng.randrange(len(words) + 1), rng.choice(POSITIVE if label else NEGATIVE))
        out.append((words, label))
    return out


def batch(data, stoi):
    """Token ids [N, S] padded with PAD, the padding mask [N, S] (True: padding) and the labels [N]."""
    longest = max(len(w) for w, _ in data)
    ids = [[stoi[t] for t in w] + [stoi[PAD]] * (longest - len(w)) for w, _ in data]
    mask = [[False] * len(w) + [True] * (longest - len(w)) for w, _ in data]
    return torch.tensor(ids), torch.tensor(mask), torch.tensor([label for _, label in data])


class Classifier(nn.Module):
    def __init__(self, vocab, d_model=32, nhead=4, layers=2, max_len=16, classes=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.pos = nn.Parameter(torch.randn(max_len, d_model) * 0.1)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=64, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, norm=nn.LayerNorm(d_model))
        self.head = nn.Linear(d_model, classes)

    def forward(self, ids, padding_mask):
        x = self.embed(ids) + self.pos[: ids.size(1)]
        x = self.encoder(x, src_key_padding_mask=padding_mask)
        keep = (~padding_mask).unsqueeze(-1).to(x.dtype)
        pooled = (x * keep).sum(1) / keep.sum(1)
        return self.head(pooled)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)

    vocab = [PAD] + POSITIVE + NEGATIVE + NEUTRAL
    stoi = {w: i for i, w in enumerate(vocab)}
    train_ids, train_mask, train_y = batch(sentences(64, rng), stoi)
    test_ids, test_mask, test_y = batch(sentences(32, rng), stoi)

    model = Classifier(len(vocab))
    print(model.encoder.layers[0])
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss = None
    for step in range(1, args.steps + 1):
        model.train()
        logits = model(train_ids, train_mask)
        loss = F.cross_entropy(logits, train_y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print("step %d loss %.4f" % (step, loss.item()))

    model.eval()
    with torch.no_grad():
        predicted = model(test_ids, test_mask).argmax(-1)
        accuracy = (predicted == test_y).float().mean().item()
    print("final loss: %.4f" % loss.item())
    print("accuracy: %.2f" % accuracy)


if __name__ == "__main__":
    main()
