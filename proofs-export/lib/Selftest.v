(* Mapcheck.Selftest -- owned by the mapcheck Coq library (proofs-export/lib).

   A worked example of the whole pipeline the exporter generates, in the
   exact proof-script shapes it should print:
     1. a concrete execution as booleans, and its Prop relations (rel_of);
     2. a small "model": definitions over Rel with boolean mirrors, one
        [reflects] lemma per definition (unfold both; reflect_tac), each
        registered in the hint database mc_reflect;
     3. a let rec as an Inductive, reflected by lfp_reflects (lfp_tac);
     4. axioms proved to hold / to fail by computation (vm_compute);
     5. Print Assumptions (no axioms), and a 20-event benchmark. *)

From Coq Require Import List.
Import ListNotations.
(* Import Dec after List: Rel.seq must shadow List.seq. *)
From Mapcheck Require Import Dec.

(* ------------------------------------------------------------------ *)
(* 1. The execution: message passing, the reader sees the flag but not
      the data.
        4: Wx=0 (init)
        T0: 0: Wx=1  po  1: Wy=1
        T1: 2: Ry=1  po  3: Rx=0                                       *)

Definition N : nat := 5.

Definition E_b : bset := ball.
Definition W_b : bset := bset_of_list [0; 1; 4].
Definition R_b : bset := bset_of_list [2; 3].
Definition po_b : brel := brel_of_list [(0, 1); (2, 3)].
Definition rf_b : brel := brel_of_list [(1, 2); (4, 3)].
Definition co_b : brel := brel_of_list [(4, 0)].
Definition rmw_b : brel := brel_of_list [].

Definition E : set := set_of N E_b.
Definition W : set := set_of N W_b.
Definition R : set := set_of N R_b.
Definition po : rel := rel_of N po_b.
Definition rf : rel := rel_of N rf_b.
Definition co : rel := rel_of N co_b.
Definition rmw : rel := rel_of N rmw_b.

(* Base relations: reflects lemma, then hint. *)
Lemma E_r : reflects_set N E E_b. Proof. unfold E. reflect_tac. Qed.
Lemma W_r : reflects_set N W W_b. Proof. unfold W. reflect_tac. Qed.
Lemma R_r : reflects_set N R R_b. Proof. unfold R. reflect_tac. Qed.
Lemma po_r : reflects N po po_b. Proof. unfold po. reflect_tac. Qed.
Lemma rf_r : reflects N rf rf_b. Proof. unfold rf. reflect_tac. Qed.
Lemma co_r : reflects N co co_b. Proof. unfold co. reflect_tac. Qed.
Lemma rmw_r : reflects N rmw rmw_b. Proof. unfold rmw. reflect_tac. Qed.
#[export] Hint Resolve E_r W_r R_r po_r rf_r co_r rmw_r : mc_reflect.

(* ------------------------------------------------------------------ *)
(* 2. The model. Per definition: Prop version, boolean mirror with the
      same operator structure, reflects lemma, hint.                    *)

(* let fr = (rf^-1 ; co) \ id *)
Definition fr : rel := minus (seq (inv rf) co) (id_on E).
Definition fr_b : brel := bminus (bseq N (binv rf_b) co_b) (bid_on E_b).
Lemma fr_r : reflects N fr fr_b. Proof. unfold fr, fr_b. reflect_tac. Qed.
#[export] Hint Resolve fr_r : mc_reflect.

(* let sthd = (po | po^-1)*   -- rtc over the events E *)
Definition sthd : rel := rtc E (union po (inv po)).
Definition sthd_b : brel := brtc N E_b (bunion po_b (binv po_b)).
Lemma sthd_r : reflects N sthd sthd_b. Proof. unfold sthd, sthd_b. reflect_tac. Qed.
#[export] Hint Resolve sthd_r : mc_reflect.

(* let ext = ~sthd   -- compl over E (the definition name sthd is a leaf) *)
Definition ext : rel := compl E sthd.
Definition ext_b : brel := bcompl E_b sthd_b.
Lemma ext_r : reflects N ext ext_b. Proof. unfold ext, ext_b. reflect_tac. Qed.
#[export] Hint Resolve ext_r : mc_reflect.

(* let com = rf | co | fr *)
Definition com : rel := union (union rf co) fr.
Definition com_b : brel := bunion (bunion rf_b co_b) fr_b.
Lemma com_r : reflects N com com_b. Proof. unfold com, com_b. reflect_tac. Qed.
#[export] Hint Resolve com_r : mc_reflect.

(* let hb = (po | (rf & ext))+   -- tc; a bmat around a mirror is allowed *)
Definition hb : rel := tc (union po (inter rf ext)).
Definition hb_b : brel := bmat N (btc N (bunion po_b (binter rf_b ext_b))).
Lemma hb_r : reflects N hb hb_b. Proof. unfold hb, hb_b. reflect_tac. Qed.
#[export] Hint Resolve hb_r : mc_reflect.

(* ------------------------------------------------------------------ *)
(* 3. let rec obs = ((rf | fr) & ext) | (obs ; po ; obs)
      One constructor per union branch; a branch that is a seq-chain of
      atoms a1;...;ak becomes premises a1 x z1 -> ... -> ak z(k-1) y.   *)

Inductive obs : rel :=
| obs_base : forall x y, inter (union rf fr) ext x y -> obs x y
| obs_step : forall x z w y, obs x z -> po z w -> obs w y -> obs x y.

(* The boolean mirror: blfp of the body, the variable abstracted. *)
Definition obs_b : brel :=
  blfp N (fun b => bunion (binter (bunion rf_b fr_b) ext_b) (bseq N b (bseq N po_b b))).

(* Shape to print: unfold the mirror, then lfp_tac <Inductive> <body>. *)
Lemma obs_r : reflects N obs obs_b.
Proof.
  unfold obs_b.
  lfp_tac obs (fun X => union (inter (union rf fr) ext) (seq X (seq po X))).
Qed.
#[export] Hint Resolve obs_r : mc_reflect.

(* The same proof with the four premises of lfp_reflects spelled out. *)
Lemma obs_r' : reflects N obs obs_b.
Proof.
  unfold obs_b.
  apply (lfp_reflects N obs (fun X => union (inter (union rf fr) ext) (seq X (seq po X)))).
  - (* F monotone *) mono_tac.
  - (* constructors: forall x y, F obs x y -> obs x y *) lfp_ctor_tac.
  - (* induction: forall R, inclusion (F R) R -> inclusion obs R *) lfp_ind_tac.
  - (* the mirror: forall r b, reflects N r b -> reflects N (F r) (bF b) *) lfp_bF_tac.
Qed.

(* ------------------------------------------------------------------ *)
(* 4. Axioms. A check on a defined name: apply <check>_true / _false to
      its reflects lemma, then compute.                                 *)

(* acyclic com : holds *)
Lemma coherence_holds : acyclic com.
Proof. apply (acyclic_true com_r). vm_compute. reflexivity. Qed.

(* irreflexive hb : holds *)
Lemma hb_irr_holds : irreflexive hb.
Proof. apply (irreflexive_true hb_r). vm_compute. reflexivity. Qed.

(* empty (rmw & (fre ; coe)) style, here: empty (rf & co) : holds *)
Lemma rf_co_empty_holds : empty (inter rf co).
Proof. apply (empty_true (n := N) (b := binter rf_b co_b)). reflect_tac. vm_compute. reflexivity. Qed.

(* acyclic (po | obs) : fails. A check on a compound expression: give the
   mirror explicitly (b := ...), reflect_tac proves the reflection. *)
Lemma causality_fails : ~ acyclic (union po obs).
Proof.
  apply (acyclic_false (n := N) (b := bunion po_b obs_b)).
  - reflect_tac.
  - vm_compute. reflexivity.
Qed.

(* acyclic (po | com) (SC) : fails *)
Lemma sc_fails : ~ acyclic (union po com).
Proof.
  apply (acyclic_false (n := N) (b := bunion po_b com_b)).
  - reflect_tac.
  - vm_compute. reflexivity.
Qed.

(* Sanity: what obs is; 1->0 and 3->2 need the lfp (obs 1->2 ; po 2->3 ;
   obs 3->0 and obs 3->0 ; po 0->1 ; obs 1->2). *)
Example obs_pairs :
  filter (fun p => obs_b (fst p) (snd p)) (list_prod (upto N) (upto N))
  = [(1, 0); (1, 2); (3, 0); (3, 2); (4, 3)].
Proof. vm_compute. reflexivity. Qed.

(* ------------------------------------------------------------------ *)
(* 5. A 20-event benchmark: a po-chain 0 -> 1 -> ... -> 19, closed into a
      cycle by 19 -> 0; obs-like lfp on it.                              *)

Definition M : nat := 20.
Definition chain_b : brel := fun x y => Nat.eqb (S x) y.
Definition back_b : brel := brel_of_list [(19, 0)].
Definition chain : rel := rel_of M chain_b.
Definition back : rel := rel_of M back_b.
Lemma chain_r : reflects M chain chain_b. Proof. unfold chain. reflect_tac. Qed.
Lemma back_r : reflects M back back_b. Proof. unfold back. reflect_tac. Qed.
#[export] Hint Resolve chain_r back_r : mc_reflect.

Lemma chain_acyclic : acyclic chain.
Proof. apply (acyclic_true chain_r). vm_compute. reflexivity. Qed.

Lemma chain_back_cyclic : ~ acyclic (union chain back).
Proof.
  apply (acyclic_false (n := M) (b := bunion chain_b back_b)).
  - reflect_tac.
  - vm_compute. reflexivity.
Qed.

(* let rec reach = chain | (reach ; chain): 19 Kleene steps. *)
Inductive reach : rel :=
| reach_base : forall x y, chain x y -> reach x y
| reach_step : forall x z y, reach x z -> chain z y -> reach x y.
Definition reach_b : brel := blfp M (fun b => bunion chain_b (bseq M b chain_b)).
Lemma reach_r : reflects M reach reach_b.
Proof. unfold reach_b. lfp_tac reach (fun X => union chain (seq X chain)). Qed.
#[export] Hint Resolve reach_r : mc_reflect.

Lemma reach_irr : irreflexive (union reach (inv reach)).
Proof.
  apply (irreflexive_true (n := M) (b := bunion reach_b (binv reach_b))).
  - reflect_tac.
  - vm_compute. reflexivity.
Qed.

Lemma reach_back_fails : ~ irreflexive (seq reach back).
Proof.
  apply (irreflexive_false (n := M) (b := bseq M reach_b back_b)).
  - reflect_tac.
  - vm_compute. reflexivity.
Qed.

Print Assumptions coherence_holds.
Print Assumptions causality_fails.
Print Assumptions obs_r.
Print Assumptions chain_back_cyclic.
Print Assumptions reach_back_fails.
