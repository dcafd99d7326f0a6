(* Checks.v — deciding the statements the exporter prints, beyond single checks (Dec.v):
   conjunctions and negations of decided Props, the tactics the generated files call
   (check_tac, conj_tac), and the two lemmas a decided statement ends with (dec_true, dec_false).
   Everything is proved; nothing is assumed. *)
From Coq Require Import List Bool.
From Mapcheck Require Import Rel Dec.
(* The generated files write concrete executions as lists: [(0, 1); (1, 2)]. *)
Export ListNotations.

(* A decided Prop is proved or refuted by computing its boolean. *)
Lemma dec_true : forall (b : bool) (P : Prop), (b = true <-> P) -> b = true -> P.
Proof. intros b P H E. apply H, E. Qed.

Lemma dec_false : forall (b : bool) (P : Prop), (b = true <-> P) -> b = false -> ~ P.
Proof. intros b P H E A. apply H in A. rewrite E in A. discriminate. Qed.

Lemma negb_dec : forall (b : bool) (P : Prop), (b = true <-> P) -> (negb b = true <-> ~ P).
Proof.
  intros b P H. destruct b; simpl; split; intro A.
  - discriminate.
  - exfalso. apply A, H. reflexivity.
  - intro p. apply H in p. discriminate.
  - reflexivity.
Qed.

Lemma andb_dec : forall (a b : bool) (A B : Prop),
  (a = true <-> A) -> (b = true <-> B) -> (a && b = true <-> A /\ B).
Proof.
  intros a b A B HA HB. rewrite andb_true_iff. split.
  - intros [Ea Eb]. split; [apply HA | apply HB]; assumption.
  - intros [pa pb]. split; [apply HA | apply HB]; assumption.
Qed.

Lemma true_dec : true = true <-> True.
Proof. split; auto. Qed.

(* An empty relation reflects any boolean mirror that computes to empty. *)
Lemma reflects_nothing : forall n r b,
  (forall x y, ~ r x y) -> bempty n b = true -> reflects n r b.
Proof.
  intros n r b Hr Hb. apply (empty_dec (rel_of_reflects (n := n) (b := b))) in Hb.
  intros x y. split.
  - intro A. exfalso. exact (Hr x y A).
  - intro A. exfalso. exact (Hb x y A).
Qed.

(* Goal: [check_b = true <-> check], a check of Dec.v on mirrored expressions, or its negation.
   Dispatch is syntactic (lazymatch): trying a lemma whose conclusion does not match would make
   Coq unfold and compute the concrete booleans while unifying. *)
Ltac check_tac :=
  lazymatch goal with
  | |- negb _ = true <-> ~ _ => apply negb_dec; check_tac
  | |- bacyclic _ _ = true <-> acyclic _ => apply acyclic_dec; reflect_tac
  | |- birreflexive _ _ = true <-> irreflexive _ => apply irreflexive_dec; reflect_tac
  | |- bempty _ _ = true <-> empty _ => apply empty_dec; reflect_tac
  | |- bset_empty _ _ = true <-> set_empty _ => apply set_empty_dec; reflect_tac
  | |- bset_subset _ _ _ = true <-> set_incl _ _ => apply set_incl_dec; reflect_tac
  | |- bsubset _ _ _ = true <-> inclusion _ _ => apply inclusion_dec; reflect_tac
  | |- bset_eq _ _ _ = true <-> set_same _ _ => apply set_same_dec; reflect_tac
  | |- brel_eq _ _ _ = true <-> same_rel _ _ => apply same_rel_dec; reflect_tac
  | |- ?g => fail "check_tac: not a decided check:" g
  end.

(* Goal: [b1 && (b2 && …) = true <-> P1 /\ (P2 /\ …)], each side a decided check, a negation,
   or a name with a decision lemma in mc_reflect. *)
Ltac conj_tac :=
  lazymatch goal with
  | |- _ && _ = true <-> _ /\ _ => apply andb_dec; conj_tac
  | |- negb _ = true <-> ~ _ => apply negb_dec; conj_tac
  | |- true = true <-> True => apply true_dec
  | |- _ => first [ solve [ eauto with nocore mc_reflect ] | check_tac ]
  end.

(* cat's `with l from linearisations(S, o)`: l is a strict total order on S (within the events
   U) that contains o restricted to S. *)
Definition linearisation (U S : set) (o l : rel) : Prop :=
  empty (minus l (cross S S)) /\ irreflexive l /\ empty (minus (seq l l) l) /\
  empty (minus (minus (cross S S) (id_on U)) (union l (inv l))) /\
  empty (minus (inter o (cross S S)) l).

Definition blinearisation (n : nat) (u s : bset) (o l : brel) : bool :=
  bempty n (bminus l (bcross s s)) && (birreflexive n l && (bempty n (bminus (bseq n l l) l) &&
  (bempty n (bminus (bminus (bcross s s) (bid_on u)) (bunion l (binv l))) &&
  bempty n (bminus (binter o (bcross s s)) l)))).

Lemma linearisation_dec : forall n U u S s o bo l bl,
  reflects_set n U u -> reflects_set n S s -> reflects n o bo -> reflects n l bl ->
  (blinearisation n u s bo bl = true <-> linearisation U S o l).
Proof.
  intros n U u S s o bo l bl HU HS Ho Hl. unfold linearisation, blinearisation.
  repeat apply andb_dec; check_tac.
Qed.

(* [blet a (fun v => k)] is [k] with [v] bound to [a]. vm_compute evaluates arguments first (call
   by value), so [a] is computed once however often [k] uses [v]: the let-chains of the mirrors
   as functions of the execution (Mirror_<model>.v). A definition rather than Coq's [let], which
   the unifier reduces away, so that [blet_dec] can follow the chain one binding at a time. *)
Definition blet {A : Type} (a : A) (k : A -> bool) : bool := k a.

Lemma blet_dec : forall {A : Type} (R : A -> Prop) (a : A) (k : A -> bool) (P : Prop),
  R a -> (forall v, R v -> (k v = true <-> P)) -> (blet a k = true <-> P).
Proof. intros A R a k P Ha Hk. exact (Hk a Ha). Qed.
